import { api } from "../shared/http/api.ts";
import { wholeListQuery } from "../shared/http/schemas/paging.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { listInboxes, inboxView } from "../shared/domain/inboxes.ts";
import { widgetBaseUrl } from "../shared/http/schemas/inboxes.ts";
import { payloadReply } from "../shared/http/replies.ts";
import { inboxListReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.list", { query: wholeListQuery, response: inboxListReply }, async (ctx) => ({
  body: payloadReply((await listInboxes(inboxesRepo, ctx.accountId)).map((i) => inboxView(i, widgetBaseUrl(ctx.event)))),
}));
