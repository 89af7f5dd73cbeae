import { api } from "../shared/http/api.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { toggleStatus } from "../shared/domain/conversations/status.ts";
import { idParam } from "../shared/http/params.ts";
import { toggleStatusBody, toggleStatusReply } from "../shared/http/schemas/conversations.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("conversations.toggle_status", { body: toggleStatusBody, response: toggleStatusReply }, async (ctx) => {
  const conv = await toggleStatus(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), ctx.body, ctx.now);
  // Chatwoot's reply has an (empty) top-level meta beside the payload.
  return { body: { meta: {}, ...payloadReply({ success: true, current_status: conv.status, conversation_id: conv.id, snoozed_until: conv.snoozed_until }) } };
});
