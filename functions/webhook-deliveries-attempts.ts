import { api } from "../shared/http/api.ts";
import { deliveriesRepo, webhooksRepo } from "../shared/db/webhooks-repo.ts";
import { attemptsView, DELIVERY_ID, showDelivery } from "../shared/domain/deliveries.ts";
import { deliveryIdParam, idParam } from "../shared/http/params.ts";
import { attemptsReply } from "../shared/http/schemas/webhooks.ts";
import { payloadReply } from "../shared/http/replies.ts";

export const handler = api("webhooks.attempts", { response: attemptsReply }, async (ctx) => {
  const d = await showDelivery(webhooksRepo, deliveriesRepo, ctx.accountId, idParam(ctx.params, "webhook_id"), deliveryIdParam(ctx.params, DELIVERY_ID));
  return { body: payloadReply(attemptsView(d)) };
});
