import { api } from "../shared/http/api.ts";
import { checkoutRepo } from "../shared/db/checkout-repo.ts";
import { requestQuote } from "../shared/domain/checkout/checkout.ts";
import { quoteBody, quoteReply } from "../shared/http/schemas/checkout.ts";

export const handler = api("checkout.quote", { body: quoteBody, response: quoteReply }, async (ctx) => ({
  status: 201,
  body: { quote: await requestQuote(checkoutRepo, ctx.body, ctx.now) },
}));
