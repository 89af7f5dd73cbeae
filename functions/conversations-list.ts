import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { listConversations } from "../shared/domain/conversations/conversations.ts";
import { pageRequest } from "../shared/http/schemas/paging.ts";
import { conversationListReply, listConversationsQuery } from "../shared/http/schemas/conversations.ts";
import { dataReply, pageReply } from "../shared/http/replies.ts";

export const handler = api("conversations.list", { query: listConversationsQuery, response: conversationListReply }, async (ctx) => ({
  body: dataReply(pageReply(await listConversations(
    conversationsRepo,
    ctx.accountId,
    { status: ctx.query.status, inboxId: ctx.query.inbox_id, assigneeType: ctx.query.assignee_type, userId: ctx.identity.userId },
    pageRequest(ctx.query),
  ))),
}));
