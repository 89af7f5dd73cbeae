/**
 * THE pricing function (a price is {currency, subtotal, discount, total}): link, coupon,
 * subscribe and billing coupon all call `priceFor`. Integer cents throughout; a percent
 * discount rounds half-up to the cent; a fixed discount is capped at the subtotal.
 */
import type { BillingCycle, Coupon, Plan } from "./catalog.ts";

export interface Price {
  readonly currency: string;
  readonly subtotal: number;
  readonly discount: number;
  readonly total: number;
}

export const MAX_ADDITIONAL_INBOXES = 100;

/** Basis points of a percent with at most two decimals (12.5 → 1250), exactly. */
export const percentToBasisPoints = (percent: number): number => Math.round(percent * 100);

/** round-half-up(amount × bp / 10 000) in integers: no floating-point drift. */
export function percentOf(amountCents: number, basisPoints: number): number {
  return Math.floor((amountCents * basisPoints + 5_000) / 10_000);
}

export function discountFor(subtotal: number, coupon: Pick<Coupon, "kind" | "value"> | undefined): number {
  if (!coupon) return 0;
  if (coupon.kind === "percent") return Math.min(subtotal, percentOf(subtotal, percentToBasisPoints(coupon.value)));
  return Math.min(subtotal, coupon.value);
}

export function priceFor(
  plan: Pick<Plan, "currency" | "prices" | "additional_inbox_prices">,
  cycle: BillingCycle,
  additionalInboxes: number,
  coupon?: Pick<Coupon, "kind" | "value">,
): Price {
  if (!Number.isInteger(additionalInboxes) || additionalInboxes < 0 || additionalInboxes > MAX_ADDITIONAL_INBOXES) {
    throw new RangeError(`additional inboxes must be an integer 0..${MAX_ADDITIONAL_INBOXES}`);
  }
  const subtotal = plan.prices[cycle] + additionalInboxes * plan.additional_inbox_prices[cycle];
  const discount = discountFor(subtotal, coupon);
  return { currency: plan.currency, subtotal, discount, total: subtotal - discount };
}
