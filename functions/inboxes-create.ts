import { api } from "../shared/http/api.ts";
import { inboxesRepo } from "../shared/db/inboxes-repo.ts";
import { createInbox } from "../shared/domain/inboxes.ts";
import { createInboxBody, inboxReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("inboxes.create", { body: createInboxBody, response: inboxReply }, async (ctx) => ({
  body: await createInbox(inboxesRepo, ctx.accountId, ctx.body, ctx.now),
}));
