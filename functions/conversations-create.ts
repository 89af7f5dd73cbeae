import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { createConversation } from "../shared/domain/conversations/conversations.ts";
import { conversationReply, createConversationBody } from "../shared/http/schemas/conversations.ts";

export const handler = api("conversations.create", { body: createConversationBody, response: conversationReply }, async (ctx) => ({
  body: await createConversation(conversationsRepo, ctx.accountId, ctx.identity.userId, ctx.body, ctx.now),
}));
