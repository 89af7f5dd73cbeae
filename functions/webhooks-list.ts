import { api } from "../shared/http/api.ts";
import { wholeListQuery } from "../shared/http/schemas/paging.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { listWebhooks } from "../shared/domain/webhooks.ts";
import { webhookListReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.list", { query: wholeListQuery, response: webhookListReply }, async (ctx) => ({
  body: payloadReply({ webhooks: await listWebhooks(webhooksRepo, ctx.accountId) }),
}));
