/**
 * Billing coupon for an existing customer: the coupon priced on the account's current
 * subscription (plan, cycle, additional inboxes) with the same function an invoice uses.
 */
import { ValidationError } from "../../errors.ts";
import { normalizeCouponCode } from "./catalog.ts";
import { answerCoupon, type CatalogReader, type CouponAnswer } from "./checkout.ts";
import type { Subscription } from "./subscribe.ts";

export interface BillingStore extends CatalogReader {
  getSubscription(accountId: number): Promise<Subscription | undefined>;
}

export async function billingCoupon(store: BillingStore, accountId: number, code: string, now: Date): Promise<CouponAnswer> {
  const subscription = await store.getSubscription(accountId);
  if (!subscription || subscription.status === "canceled") throw ValidationError.field("subscription", "not_found", "does not exist");
  // The plan the customer is on, published or not (a retired plan still bills its customers).
  const [plan, coupon] = await Promise.all([store.getPlan(subscription.plan), store.getCoupon(normalizeCouponCode(code))]);
  if (!plan) return { valid: false, reason: "not_applicable" };
  return answerCoupon(coupon, plan, subscription.billing_cycle, subscription.additional_inboxes, now);
}
