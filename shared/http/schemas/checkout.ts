/** Bodies and queries of the public checkout and billing routes. */
import * as z from "zod/mini";
import { BILLING_CYCLES } from "../../domain/checkout/catalog.ts";
import { normalizeCnpj } from "../../domain/checkout/cnpj.ts";
import { normalizeBrazilianPhone } from "../../domain/checkout/phone.ts";
import { MAX_ADDITIONAL_INBOXES } from "../../domain/checkout/pricing.ts";
import type { Customer } from "../../domain/checkout/checkout.ts";
import { lazy } from "../../lazy.ts";
import { blankAsNull, intField, named, newPassword, reply, unixTime, visible, type ReplySpec } from "./common.ts";

const text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max), visible());

export const email = z.pipe(
  z.string().check(z.trim(), z.toLowerCase(), z.maxLength(254)),
  z.email(),
);

/** Brazilian phone in any common form → E.164. */
export const phone = z.pipe(
  z.string().check(z.maxLength(40)),
  z.transform((v, ctx) => {
    const e164 = normalizeBrazilianPhone(v);
    if (e164) return e164;
    ctx.issues.push({ code: "custom", message: "is not a valid Brazilian phone number", params: { code: "invalid" }, input: v });
    return z.NEVER;
  }),
);

/** CNPJ, numeric or alphanumeric, with check digits → its 14 characters. */
export const cnpj = z.pipe(
  z.string().check(z.maxLength(40)),
  z.transform((v, ctx) => {
    const n = normalizeCnpj(v);
    if (n) return n;
    ctx.issues.push({ code: "custom", message: "is not a valid CNPJ", params: { code: "invalid" }, input: v });
    return z.NEVER;
  }),
);

/**
 * An optional field whose null or blank value means absent, as Rails reads nil and an empty form
 * input (generated clients send null for unset fields, forms an empty string).
 */
const optional = <T extends z.ZodMiniType>(schema: T) =>
  z.pipe(blankAsNull(z.optional(z.nullable(schema))), z.transform((v) => v ?? undefined));

const plan = text(60);
const billingCycle = z.enum(BILLING_CYCLES);
const additionalInboxes = optional(intField(0, MAX_ADDITIONAL_INBOXES));
const couponCode = text(40);

const toCustomer = (c: { name: string; email: string; phone?: string | undefined; cnpj?: string | undefined }): Customer => ({
  name: c.name,
  email: c.email,
  phone: c.phone ?? null,
  cnpj: c.cnpj ?? null,
});

/** Link: name and e-mail are needed to prefill anything; phone and CNPJ when the site has them. */
const linkCustomer = z.pipe(
  z.object({ name: text(255), email, phone: optional(phone), cnpj: optional(cnpj) }),
  z.transform((c) => toCustomer(c)),
);

/** Subscribe: the billing customer, complete. */
const subscribeCustomer = z.pipe(z.object({ name: text(255), email, phone, cnpj }), z.transform((c) => toCustomer(c)));

export const linkBody = lazy(() => z.object({
  plan,
  billing_cycle: billingCycle,
  additional_inboxes: additionalInboxes,
  coupon: optional(couponCode),
  customer: optional(linkCustomer),
}));

export const prefillQuery = lazy(() => z.object({ token: z.optional(z.string()) }));

export const couponBody = lazy(() => z.object({
  code: couponCode,
  plan,
  billing_cycle: billingCycle,
  additional_inboxes: additionalInboxes,
}));

export const subscribeBody = lazy(() => z.object({
  plan,
  billing_cycle: billingCycle,
  additional_inboxes: additionalInboxes,
  coupon: optional(couponCode),
  account_name: text(255),
  user: z.object({ name: text(255), email, password: newPassword() }),
  customer: subscribeCustomer,
  token: optional(z.string().check(z.maxLength(200))),
  // Chatwoot's locale codes: `en`, `pt_BR`, `es`...
  locale: optional(z.string().check(z.regex(/^[a-z]{2,3}(_[A-Z]{2})?$/))),
}));

export const quoteBody = lazy(() => z.object({
  name: text(255),
  email,
  phone: optional(phone),
  company: optional(text(255)),
  cnpj: optional(cnpj),
  inboxes: optional(intField(1, 100_000)),
  agents: optional(intField(1, 100_000)),
  message: text(5000),
}));

export const billingCouponBody = lazy(() => z.object({ code: couponCode }));

// ---------------------------------------------------------------- replies

const cents = z.int();
const perCycle = lazy(() => z.looseObject({ monthly: cents, yearly: cents }));

export const priceView = named(
  "Price",
  () => z.looseObject({ currency: z.string(), subtotal: cents, discount: cents, total: cents }),
  "A price: integer cents; total = subtotal - discount.",
);

export const planView = named(
  "Plan",
  () => z.looseObject({
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    currency: z.string(),
    prices: perCycle(),
    included_inboxes: z.int(),
    additional_inbox_prices: perCycle(),
    features: z.array(z.string()),
  }),
);

const couponView = named(
  "Coupon",
  () => z.looseObject({
    code: z.string(),
    kind: z.enum(["percent", "fixed"]),
    value: z.number(),
    currency: z.string(),
    duration: z.enum(["once", "forever", "repeating"]),
    duration_months: z.nullable(z.int()),
    valid_until: z.nullable(z.string()),
  }),
);

export const customerView = named(
  "Customer",
  () => z.looseObject({ name: z.string(), email: z.string(), phone: z.nullable(z.string()), cnpj: z.nullable(z.string()) }),
);

const couponAnswer = named(
  "CouponAnswer",
  () => z.union([
    z.looseObject({ valid: z.literal(true), coupon: couponView(), price: priceView() }),
    z.looseObject({ valid: z.literal(false), reason: z.enum(["not_found", "expired", "not_applicable", "exhausted"]) }),
  ]),
  "Either the coupon with the discounted price, or why it does not apply.",
);

export const plansReply = reply(() => z.looseObject({ plans: z.array(planView()) }), "The published plans, in display order");
export const linkReply = reply(
  () => z.looseObject({ url: z.string(), expires_at: z.optional(z.string()), price: priceView() }),
  "The checkout page link (never carries personal data; `expires_at` when a customer was prefilled)",
  201,
);
export const prefillReply: ReplySpec = {
  ...reply(() => z.looseObject({ customer: customerView(), expires_at: z.string() }), "The customer of a live checkout token"),
  errors: [404],
};
export const couponReply = reply(() => couponAnswer(), "The coupon check (200 whether valid or not)");
export const subscribeReply = reply(
  () => z.looseObject({
    account: z.looseObject({ id: z.int(), name: z.string() }),
    user: z.looseObject({ id: z.int(), name: z.string(), email: z.string() }),
    subscription: z.looseObject({
      id: z.int(),
      status: z.enum(["pending_payment", "active", "canceled"]),
      plan: z.string(),
      billing_cycle: billingCycle,
      additional_inboxes: z.int(),
      coupon: z.nullable(z.string()),
      price: priceView(),
    }),
    access_token: z.string(),
  }),
  "The account, its administrator and subscription, and an API key (a replay of the same Idempotency-Key returns the first reply)",
  201,
);
/** 409: Idempotency-Key reused with another body or still in progress; 503: too many concurrent subscriptions. */
export const subscribeReplySpec: ReplySpec = { ...subscribeReply, errors: [409, 503] };
export const quoteReply = reply(
  () => z.looseObject({ quote: z.looseObject({ id: z.int(), status: z.literal("received"), created_at: unixTime }) }),
  "The quote request is recorded",
  201,
);
