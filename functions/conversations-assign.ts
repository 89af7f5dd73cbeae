import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { assignConversation } from "../shared/domain/conversations/assignments.ts";
import { idParam } from "../shared/http/params.ts";
import { assignmentBody, assignmentReply } from "../shared/http/schemas/conversations.ts";

export const handler = api("conversations.assignments", { body: assignmentBody, response: assignmentReply }, async (ctx) => ({
  body: await assignConversation(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), ctx.body.assignee_id, ctx.now),
}));
