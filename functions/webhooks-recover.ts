import { api } from "../shared/http/api.ts";
import { recoveryRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { recoverDeliveries } from "../shared/domain/delivery-recovery.ts";
import { deliveryQueue } from "../shared/queue/sqs.ts";
import { idParam } from "../shared/http/params.ts";
import { routeById } from "../shared/routes.ts";
import { recoverBody, recoverReply } from "../shared/http/schemas/webhooks.ts";

/** Pages are worked until this much of the function's time is used; the next call resumes the rest. */
const BUDGET_MS = ((routeById("webhooks.recover").timeoutSeconds ?? 10) - 8) * 1000;

export const handler = api("webhooks.recover", { body: recoverBody, response: recoverReply }, async (ctx) => {
  const r = await recoverDeliveries(webhooksRepo, recoveryRepo, deliveryQueue, ctx.accountId, idParam(ctx.params, "webhook_id"), ctx.body, ctx.now, BUDGET_MS);
  return { status: 202, body: { recovered: r.recovered } };
});
