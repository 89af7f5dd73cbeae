import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { updateMessage } from "../shared/domain/conversations/messages.ts";
import { idParam } from "../shared/http/params.ts";
import { messageReply, updateMessageBody } from "../shared/http/schemas/conversations.ts";

export const handler = api("messages.update", { body: updateMessageBody, response: messageReply }, async (ctx) => ({
  body: await updateMessage(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), idParam(ctx.params, "message_id"), ctx.body, ctx.now),
}));
