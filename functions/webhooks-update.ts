import { api } from "../shared/http/api.ts";
import { config } from "../shared/config.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { updateWebhook } from "../shared/domain/webhooks.ts";
import { idParam } from "../shared/http/params.ts";
import { updateWebhookBody, webhookReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

const urlPolicy = () => ({ allowPrivateNetwork: config().WEBHOOK_ALLOW_PRIVATE_NETWORK });

export const handler = api("webhooks.update", { body: updateWebhookBody, response: webhookReply }, async (ctx) => ({
  body: payloadReply({ webhook: await updateWebhook(webhooksRepo, ctx.accountId, idParam(ctx.params, "webhook_id"), ctx.body, ctx.now, urlPolicy()) }),
}));
