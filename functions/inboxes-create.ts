import { api } from "../shared/http/api.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { createInbox, inboxView } from "../shared/domain/inboxes.ts";
import { widgetBaseUrl } from "../shared/http/schemas/inboxes.ts";
import { createInboxBody, inboxReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.create", { body: createInboxBody, response: inboxReply }, async (ctx) => ({
  body: inboxView(await createInbox(inboxesRepo, ctx.accountId, ctx.body, ctx.now), widgetBaseUrl(ctx.event)),
}));
