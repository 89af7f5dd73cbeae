import { api } from "../shared/http/api.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { updateInbox, inboxView } from "../shared/domain/inboxes.ts";
import { widgetBaseUrl } from "../shared/http/schemas/inboxes.ts";
import { idParam } from "../shared/http/params.ts";
import { inboxReply, updateInboxBody } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.update", { body: updateInboxBody, response: inboxReply }, async (ctx) => ({
  body: inboxView(await updateInbox(inboxesRepo, ctx.accountId, idParam(ctx.params, "inbox_id"), ctx.body, ctx.now), widgetBaseUrl(ctx.event)),
}));
