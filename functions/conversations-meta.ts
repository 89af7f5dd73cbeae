import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { conversationsMeta } from "../shared/domain/conversations/conversations.ts";
import { conversationsMetaReply, metaQuery } from "../shared/http/schemas/conversations.ts";

export const handler = api("conversations.meta", { query: metaQuery, response: conversationsMetaReply }, async (ctx) => ({
  body: { meta: await conversationsMeta(conversationsRepo, ctx.accountId, { status: ctx.query.status, inboxId: ctx.query.inbox_id, userId: ctx.identity.userId }) },
}));
