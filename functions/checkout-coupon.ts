import { api } from "../shared/http/api.ts";
import { catalogRepo } from "../shared/db/catalog-repo.ts";
import { validateCoupon } from "../shared/domain/checkout/checkout.ts";
import { couponBody, couponReply } from "../shared/http/schemas/checkout.ts";

export const handler = api("checkout.coupon", { body: couponBody, response: couponReply }, async (ctx) => ({
  body: await validateCoupon(catalogRepo, ctx.body, ctx.now),
}));
