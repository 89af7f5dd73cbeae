import { api } from "../shared/http/api.ts";
import { checkoutRepo } from "../shared/db/checkout-repo.ts";
import { prefill } from "../shared/domain/checkout/checkout.ts";
import { prefillQuery } from "../shared/http/schemas/checkout.ts";

// cache-control: no-store comes from the route table (on the 404 too).
export const handler = api("checkout.prefill", { query: prefillQuery }, async (ctx) => ({
  body: await prefill(checkoutRepo, ctx.query.token, ctx.now),
}));
