/** Bodies and queries of the public checkout and billing routes (API.md "Public checkout"). */
import * as z from "zod/mini";
import { BILLING_CYCLES } from "../../domain/checkout/catalog.ts";
import { normalizeCnpj } from "../../domain/checkout/cnpj.ts";
import { normalizeBrazilianPhone } from "../../domain/checkout/phone.ts";
import { MAX_ADDITIONAL_INBOXES } from "../../domain/checkout/pricing.ts";
import type { Customer } from "../../domain/checkout/checkout.ts";

const text = (max: number) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max));

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

const plan = text(60);
const billingCycle = z.enum(BILLING_CYCLES);
const additionalInboxes = z.optional(z.int().check(z.minimum(0), z.maximum(MAX_ADDITIONAL_INBOXES)));
const couponCode = text(40);

const toCustomer = (c: { name: string; email: string; phone?: string | undefined; cnpj?: string | undefined }): Customer => ({
  name: c.name,
  email: c.email,
  phone: c.phone ?? null,
  cnpj: c.cnpj ?? null,
});

/** Link: name and e-mail are needed to prefill anything; phone and CNPJ when the site has them. */
const linkCustomer = z.pipe(
  z.object({ name: text(255), email, phone: z.optional(phone), cnpj: z.optional(cnpj) }),
  z.transform((c) => toCustomer(c)),
);

/** Subscribe: the billing customer, complete. */
const subscribeCustomer = z.pipe(z.object({ name: text(255), email, phone, cnpj }), z.transform((c) => toCustomer(c)));

export const linkBody = z.object({
  plan,
  billing_cycle: billingCycle,
  additional_inboxes: additionalInboxes,
  coupon: z.optional(couponCode),
  customer: z.optional(linkCustomer),
});

export const prefillQuery = z.object({ token: z.optional(z.string()) });

export const couponBody = z.object({
  code: couponCode,
  plan,
  billing_cycle: billingCycle,
  additional_inboxes: additionalInboxes,
});

export const subscribeBody = z.object({
  plan,
  billing_cycle: billingCycle,
  additional_inboxes: additionalInboxes,
  coupon: z.optional(couponCode),
  account_name: text(255),
  user: z.object({ name: text(255), email, password: z.string().check(z.minLength(8), z.maxLength(128)) }),
  customer: subscribeCustomer,
  token: z.optional(z.string().check(z.maxLength(200))),
});

export const quoteBody = z.object({
  name: text(255),
  email,
  phone: z.optional(phone),
  company: z.optional(text(255)),
  cnpj: z.optional(cnpj),
  inboxes: z.optional(z.int().check(z.minimum(1), z.maximum(100_000))),
  agents: z.optional(z.int().check(z.minimum(1), z.maximum(100_000))),
  message: text(5000),
});

export const billingCouponBody = z.object({ code: couponCode });
