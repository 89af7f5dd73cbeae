import { api } from "../shared/http/api.ts";
import { deliveriesRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { DELIVERY_ID, deliveryView, resendDelivery } from "../shared/domain/deliveries.ts";
import { deliveryQueue } from "../shared/queue/sqs.ts";
import { deliveryIdParam, idParam } from "../shared/http/params.ts";
import { deliveryResendReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.resend", { response: deliveryResendReply }, async (ctx) => {
  const d = await resendDelivery(webhooksRepo, deliveriesRepo, deliveryQueue, ctx.accountId, idParam(ctx.params, "webhook_id"), deliveryIdParam(ctx.params, DELIVERY_ID), ctx.now);
  return { status: 202, body: payloadReply({ delivery: deliveryView(d) }) };
});
