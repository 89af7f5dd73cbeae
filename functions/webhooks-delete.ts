import { api } from "../shared/http/api.ts";
import { webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { deleteWebhook } from "../shared/domain/webhooks.ts";
import { idParam } from "../shared/http/params.ts";
import { webhookDeletedReply } from "../shared/http/schemas/webhooks.ts";

export const handler = api("webhooks.delete", { response: webhookDeletedReply }, async (ctx) => {
  await deleteWebhook(webhooksRepo, ctx.accountId, idParam(ctx.params, "webhook_id"));
  return { status: 200 };
});
