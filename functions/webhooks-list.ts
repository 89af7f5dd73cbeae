import { api } from "../shared/http/api.ts";
import { pageQuery } from "../shared/http/schemas/paging.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { listWebhooks } from "../shared/domain/webhooks.ts";
import { webhookListReply } from "../shared/http/schemas/webhooks.ts";

export const handler = api("webhooks.list", { query: pageQuery, response: webhookListReply }, async (ctx) => ({
  body: { payload: { webhooks: await listWebhooks(webhooksRepo, ctx.accountId) } },
}));
