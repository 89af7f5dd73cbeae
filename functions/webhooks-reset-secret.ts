import { api } from "../shared/http/api.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { resetSecret } from "../shared/domain/webhooks.ts";
import { idParam } from "../shared/http/params.ts";
import { resetSecretBody, webhookReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.reset_secret", { body: resetSecretBody, response: webhookReply }, async (ctx) => ({
  body: payloadReply({ webhook: await resetSecret(webhooksRepo, ctx.accountId, idParam(ctx.params, "webhook_id"), ctx.body, ctx.now) }),
}));
