import { api } from "../shared/http/api.ts";
import { config } from "../shared/config.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { createWebhook } from "../shared/domain/webhooks.ts";
import { createWebhookBody, webhookReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

const urlPolicy = () => ({ allowPrivateNetwork: config().WEBHOOK_ALLOW_PRIVATE_NETWORK });

export const handler = api("webhooks.create", { body: createWebhookBody, response: webhookReply }, async (ctx) => ({
  body: payloadReply({ webhook: await createWebhook(webhooksRepo, ctx.accountId, ctx.body, ctx.now, urlPolicy()) }),
}));
