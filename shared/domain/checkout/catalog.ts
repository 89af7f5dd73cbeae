/**
 * The checkout catalog: plans and coupons, with the zod
 * schemas that validate the operator's JSON files (`npm run admin`) and the stored items.
 * Money is integer cents.
 */
import * as z from "zod/mini";
import { lazy } from "../../lazy.ts";

export const BILLING_CYCLES = ["monthly", "yearly"] as const;
export type BillingCycle = (typeof BILLING_CYCLES)[number];

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const COUPON_CODE = /^[A-Z0-9][A-Z0-9_-]{1,39}$/;

// The two schemas are built on first use (shared/lazy.ts): a checkout function reads plans or
// coupons, seldom both, and building them is ~2 ms of a cold start each.

function buildPlanSchema() {
  const cents = z.int().check(z.minimum(0), z.maximum(100_000_000));
  const perCycle = z.object({ monthly: cents, yearly: cents });
  return z.object({
    slug: z.string().check(z.regex(SLUG, "must be lower-case letters, digits and dashes"), z.maxLength(60)),
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
    description: z._default(z.string().check(z.maxLength(1000)), ""),
    currency: z._default(z.literal("BRL"), "BRL"),
    prices: perCycle,
    included_inboxes: z.int().check(z.minimum(0), z.maximum(10_000)),
    additional_inbox_prices: perCycle,
    features: z._default(z.array(z.string().check(z.minLength(1), z.maxLength(200))).check(z.maxLength(50)), []),
    published: z._default(z.boolean(), true),
    /** Display order in the price table (ascending); ties by monthly price. */
    sort_order: z._default(z.int(), 0),
  });
}
export const planSchema = lazy(buildPlanSchema);
export type Plan = z.infer<ReturnType<typeof buildPlanSchema>>;

function buildCouponSchema() {
  const isoDate = z.iso.datetime({ offset: true });
  return z
    .object({
      code: z.pipe(
        z.string().check(z.trim()),
        z.transform((s) => s.toUpperCase()),
      ).check(z.regex(COUPON_CODE, "must be 2-40 letters, digits, _ or -")),
      kind: z.enum(["percent", "fixed"]),
      /** percent: 0.01..100 with at most two decimals; fixed: cents. */
      value: z.number().check(z.positive()),
      currency: z._default(z.literal("BRL"), "BRL"),
      valid_from: z._default(z.nullable(isoDate), null),
      valid_until: z._default(z.nullable(isoDate), null),
      /** null = unlimited. */
      max_redemptions: z._default(z.nullable(z.int().check(z.minimum(0))), null),
      /** Plan slugs it applies to; empty = every plan. */
      plans: z._default(z.array(z.string().check(z.regex(SLUG))), []),
      /** Billing cycles it applies to; empty = both. */
      cycles: z._default(z.array(z.enum(BILLING_CYCLES)), []),
      duration: z.enum(["once", "forever", "repeating"]),
      /** Months the discount lasts when duration is "repeating". */
      duration_months: z._default(z.nullable(z.int().check(z.minimum(1), z.maximum(120))), null),
    })
    .check(
      z.refine((c) => c.kind !== "percent" || (c.value <= 100 && Math.abs(c.value * 100 - Math.round(c.value * 100)) < 1e-9), {
        message: "percent must be at most 100 with at most two decimals",
        path: ["value"],
      }),
      z.refine((c) => c.kind !== "fixed" || Number.isInteger(c.value), { message: "a fixed value is integer cents", path: ["value"] }),
      z.refine((c) => (c.duration === "repeating") === (c.duration_months !== null), {
        message: "duration_months is required with duration \"repeating\" and only then",
        path: ["duration_months"],
      }),
      z.refine((c) => c.valid_from === null || c.valid_until === null || Date.parse(c.valid_from) < Date.parse(c.valid_until), {
        message: "valid_until must be after valid_from",
        path: ["valid_until"],
      }),
    );
}
export const couponSchema = lazy(buildCouponSchema);
export type CouponDef = z.infer<ReturnType<typeof buildCouponSchema>>;

/** A stored coupon: its definition plus how many times it was redeemed. */
export interface Coupon extends CouponDef {
  readonly redemptions: number;
}

export type CouponRejection = "not_found" | "expired" | "not_applicable" | "exhausted";

export type CouponCheck = { readonly ok: true; readonly coupon: Coupon } | { readonly ok: false; readonly reason: CouponRejection };

/** Whether a coupon applies to (plan, cycle) at `now`. A coupon not yet valid is not revealed. */
export function checkCoupon(coupon: Coupon | undefined, plan: Plan, cycle: BillingCycle, now: Date): CouponCheck {
  if (!coupon) return { ok: false, reason: "not_found" };
  const t = now.getTime();
  // Stryker disable next-line ConditionalExpression: without the null test Date.parse(null) is NaN, which is after no instant
  if (coupon.valid_from !== null && Date.parse(coupon.valid_from) > t) return { ok: false, reason: "not_found" };
  // Stryker disable next-line ConditionalExpression: without the null test Date.parse(null) is NaN, which is at or before no instant
  if (coupon.valid_until !== null && Date.parse(coupon.valid_until) <= t) return { ok: false, reason: "expired" };
  if (coupon.plans.length > 0 && !coupon.plans.includes(plan.slug)) return { ok: false, reason: "not_applicable" };
  if (coupon.cycles.length > 0 && !coupon.cycles.includes(cycle)) return { ok: false, reason: "not_applicable" };
  // A fixed amount is in the coupon's currency. Both schemas admit only "BRL" today, so this never refuses a stored coupon.
  // Stryker disable next-line all: with one currency the coupon's and the plan's always match
  if (coupon.kind === "fixed" && coupon.currency !== plan.currency) return { ok: false, reason: "not_applicable" };
  if (coupon.max_redemptions !== null && coupon.redemptions >= coupon.max_redemptions) return { ok: false, reason: "exhausted" };
  return { ok: true, coupon };
}

/** The public view of a coupon (no redemption counts). */
export function couponView(c: Coupon) {
  return {
    code: c.code,
    kind: c.kind,
    value: c.value,
    currency: c.currency,
    duration: c.duration,
    duration_months: c.duration_months,
    valid_until: c.valid_until,
  };
}

/** The public view of a plan (what `GET .../plans` lists). */
export function planView(p: Plan) {
  return {
    slug: p.slug,
    name: p.name,
    description: p.description,
    currency: p.currency,
    prices: p.prices,
    included_inboxes: p.included_inboxes,
    additional_inbox_prices: p.additional_inbox_prices,
    features: p.features,
  };
}

export const normalizeCouponCode = (code: string): string => code.trim().toUpperCase();
