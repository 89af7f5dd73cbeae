import { api, type Reply } from "../shared/http/api.ts";
import { checkoutRepo } from "../shared/db/checkout-repo.ts";
import { subscribe } from "../shared/domain/checkout/subscribe.ts";
import { subscribeBody, subscribeReplySpec } from "../shared/http/schemas/checkout.ts";
import { idempotencyKey } from "../shared/http/idempotency.ts";

export const handler = api("checkout.subscribe", { body: subscribeBody, response: subscribeReplySpec }, async (ctx): Promise<Reply> => {
  const { reply, replayed } = await subscribe(checkoutRepo, ctx.body, idempotencyKey(ctx.headers), ctx.now);
  return { status: 201, body: reply, headers: replayed ? { "idempotent-replayed": "true" } : {} };
});
