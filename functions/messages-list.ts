import { messageView } from "../shared/domain/conversations/views.ts";
import { api } from "../shared/http/api.ts";
import { attachmentFiles } from "../shared/db/attachment-files.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { withAttachmentUrls } from "../shared/domain/conversations/attachments.ts";
import { listMessages } from "../shared/domain/conversations/messages.ts";
import { idParam } from "../shared/http/params.ts";
import { pageQuery, pageRequest } from "../shared/http/schemas/paging.ts";
import { messageListReply } from "../shared/http/schemas/conversations.ts";
import { pageReply } from "../shared/http/replies.ts";

export const handler = api("messages.list", { query: pageQuery, response: messageListReply }, async (ctx) => {
  const page = await listMessages(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), pageRequest(ctx.query));
  const files = attachmentFiles();
  return { body: pageReply({ ...page, items: await Promise.all(page.items.map(async (m) => messageView(await withAttachmentUrls(m, files)))) }) };
});
