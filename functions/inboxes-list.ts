import { api } from "../shared/http/api.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";

export const handler = api("inboxes.list", {}, async (ctx) => ({
  body: { payload: await inboxesRepo.listInboxes(ctx.accountId) },
}));
