import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { showConversation } from "../shared/domain/conversations/conversations.ts";
import { idParam } from "../shared/http/params.ts";
import { conversationReply } from "../shared/http/schemas/conversations.ts";

export const handler = api("conversations.show", { response: conversationReply }, async (ctx) => ({
  body: await showConversation(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id")),
}));
