import { api } from "../shared/http/api.ts";
import { pageQuery } from "../shared/http/schemas/paging.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { inboxListReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.list", { query: pageQuery, response: inboxListReply }, async (ctx) => ({
  body: { payload: await inboxesRepo.listInboxes(ctx.accountId) },
}));
