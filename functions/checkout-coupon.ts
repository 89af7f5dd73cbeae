import { api } from "../shared/http/api.ts";
import { catalogRepo } from "../shared/db/catalog-repo.ts";
import { validateCoupon } from "../shared/domain/checkout/checkout.ts";
import { couponBody } from "../shared/http/schemas/checkout.ts";

export const handler = api("checkout.coupon", { body: couponBody }, async (ctx) => ({
  body: await validateCoupon(catalogRepo, ctx.body, ctx.now),
}));
