import { api } from "../shared/http/api.ts";
import { checkoutRepo } from "../shared/db/checkout-repo.ts";
import { billingCoupon } from "../shared/domain/checkout/billing.ts";
import { billingCouponBody, couponReply } from "../shared/http/schemas/checkout.ts";

export const handler = api("billing.coupon", { body: billingCouponBody, response: couponReply }, async (ctx) => ({
  body: await billingCoupon(checkoutRepo, ctx.accountId, ctx.body.code, ctx.now),
}));
