import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { createMessage } from "../shared/domain/conversations/messages.ts";
import { idParam } from "../shared/http/params.ts";
import { createMessageBody, messageReply } from "../shared/http/schemas/conversations.ts";

export const handler = api("messages.create", { body: createMessageBody, response: messageReply }, async (ctx) => ({
  body: await createMessage(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), ctx.identity.userId, ctx.body, ctx.now),
}));
