import { api } from "../shared/http/api.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { inboxListReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.list", { response: inboxListReply }, async (ctx) => ({
  body: { payload: await inboxesRepo.listInboxes(ctx.accountId) },
}));
