import { api } from "../shared/http/api.ts";
import { deliveriesRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { DELIVERY_ID, deliveryView, resendDelivery } from "../shared/domain/deliveries.ts";
import { deliveryQueue } from "../shared/queue/sqs.ts";
import { idParam } from "../shared/http/params.ts";
import { NotFound } from "../shared/domain/errors.ts";
import { deliveryResendReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

const deliveryId = (params: Readonly<Record<string, string>>): string => {
  const id = params["delivery_id"] ?? "";
  if (!DELIVERY_ID.test(id)) throw new NotFound();
  return id;
};

export const handler = api("webhooks.resend", { response: deliveryResendReply }, async (ctx) => {
  const d = await resendDelivery(webhooksRepo, deliveriesRepo, deliveryQueue, ctx.accountId, idParam(ctx.params, "webhook_id"), deliveryId(ctx.params), ctx.now);
  return { status: 202, body: payloadReply({ delivery: deliveryView(d) }) };
});
