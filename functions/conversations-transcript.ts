import { api } from "../shared/http/api.ts";
import { attachmentFiles } from "../shared/db/attachment-files.ts";
import { conversationsRepo } from "../shared/db/conversations-repo.ts";
import { transcript, transcriptText } from "../shared/domain/conversations/transcript.ts";
import { idParam } from "../shared/http/params.ts";
import { transcriptQuery, transcriptReply } from "../shared/http/schemas/conversations.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("conversations.transcript", { query: transcriptQuery, response: transcriptReply }, async (ctx) => {
  const t = await transcript(conversationsRepo, ctx.accountId, idParam(ctx.params, "conversation_id"), attachmentFiles());
  return ctx.query.format === "text" ? { text: transcriptText(t) } : { body: payloadReply(t) };
});
