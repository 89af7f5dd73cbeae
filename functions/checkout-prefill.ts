import { api } from "../shared/http/api.ts";
import { checkoutRepo } from "../shared/db/checkout-repo.ts";
import { prefill } from "../shared/domain/checkout/checkout.ts";
import { prefillQuery, prefillReply } from "../shared/http/schemas/checkout.ts";

// cache-control: no-store comes from the route table (on the 404 too).
export const handler = api("checkout.prefill", { query: prefillQuery, response: prefillReply }, async (ctx) => ({
  body: await prefill(checkoutRepo, ctx.query.token, ctx.now),
}));
