import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { toggleTyping } from "../shared/domain/conversations/typing.ts";
import { idParam } from "../shared/http/params.ts";
import { typingBody, typingReply } from "../shared/http/schemas/conversations.ts";
import { successReply } from "../shared/http/replies.ts";

export const handler = api("conversations.toggle_typing_status", { body: typingBody, response: typingReply }, async (ctx) => {
  await toggleTyping(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), ctx.identity.userId, ctx.body);
  return { body: successReply() };
});
