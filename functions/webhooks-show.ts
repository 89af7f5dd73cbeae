import { api } from "../shared/http/api.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { showWebhook } from "../shared/domain/webhooks.ts";
import { idParam } from "../shared/http/params.ts";
import { webhookReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.show", { response: webhookReply }, async (ctx) => ({
  body: payloadReply({ webhook: await showWebhook(webhooksRepo, ctx.accountId, idParam(ctx.params, "webhook_id")) }),
}));
