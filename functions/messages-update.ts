import { messageView } from "../shared/domain/conversations/views.ts";
import { api } from "../shared/http/api.ts";
import { attachmentFiles } from "../shared/db/attachment-files.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { updateMessage } from "../shared/domain/conversations/messages.ts";
import { formBody } from "../shared/http/multipart.ts";
import { idParam } from "../shared/http/params.ts";
import { messageReply, updateMessageBody } from "../shared/http/schemas/conversations.ts";

/** JSON, or multipart/form-data with the same fields plus `attachments[]` files (added to the message's). */
export const handler = api("messages.update", { body: updateMessageBody, form: formBody, response: messageReply }, async (ctx) => ({
  body: messageView(await updateMessage(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), idParam(ctx.params, "message_id"), ctx.body, ctx.now, {
    list: ctx.files ?? [],
    store: attachmentFiles(),
  })),
}));
