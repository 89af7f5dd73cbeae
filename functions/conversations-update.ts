import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { updateConversation } from "../shared/domain/conversations/conversations.ts";
import { idParam } from "../shared/http/params.ts";
import { conversationReply, updateConversationBody } from "../shared/http/schemas/conversations.ts";

export const handler = api("conversations.update", { body: updateConversationBody, response: conversationReply }, async (ctx) => ({
  body: await updateConversation(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), ctx.body, ctx.now),
}));
