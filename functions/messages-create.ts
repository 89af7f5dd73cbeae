import { messageView } from "../shared/domain/conversations/views.ts";
import { api } from "../shared/http/api.ts";
import { attachmentFiles } from "../shared/db/attachment-files.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { createMessage } from "../shared/domain/conversations/messages.ts";
import { formBody } from "../shared/http/multipart.ts";
import { idParam } from "../shared/http/params.ts";
import { createMessageBody, messageReply } from "../shared/http/schemas/conversations.ts";

/** JSON, or multipart/form-data with the same fields plus `attachments[]` files (Chatwoot's form). */
export const handler = api("messages.create", { body: createMessageBody, form: formBody, response: messageReply }, async (ctx) => ({
  body: messageView(await createMessage(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), ctx.identity.userId, ctx.body, ctx.now, {
    list: ctx.files ?? [],
    store: attachmentFiles(),
  })),
}));
