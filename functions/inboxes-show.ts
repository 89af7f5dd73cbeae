import { api } from "../shared/http/api.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { getInbox, inboxView } from "../shared/domain/inboxes.ts";
import { widgetBaseUrl } from "../shared/http/schemas/inboxes.ts";
import { idParam } from "../shared/http/params.ts";
import { inboxReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.show", { response: inboxReply }, async (ctx) => ({
  body: inboxView(await getInbox(inboxesRepo, ctx.accountId, idParam(ctx.params, "inbox_id")), widgetBaseUrl(ctx.event)),
}));
