import { api } from "../shared/http/api.ts";
import { config } from "../shared/config.ts";
import { checkoutRepo } from "../shared/db/checkout-repo.ts";
import { createLink } from "../shared/domain/checkout/checkout.ts";
import { linkBody, linkReply } from "../shared/http/schemas/checkout.ts";

export const handler = api("checkout.link", { body: linkBody, response: linkReply }, async (ctx) => ({
  status: 201,
  body: await createLink({ catalog: checkoutRepo, tokens: checkoutRepo, pageUrl: config().CHECKOUT_PAGE_URL }, ctx.body, ctx.now),
}));
