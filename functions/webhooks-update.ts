import { api } from "../shared/http/api.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { updateWebhook } from "../shared/domain/webhooks.ts";
import { idParam } from "../shared/http/params.ts";
import { updateWebhookBody, webhookReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.update", { body: updateWebhookBody, response: webhookReply }, async (ctx) => ({
  body: payloadReply({ webhook: await updateWebhook(webhooksRepo, ctx.accountId, idParam(ctx.params, "webhook_id"), ctx.body, ctx.now) }),
}));
