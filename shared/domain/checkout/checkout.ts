/**
 * Public checkout use cases: plans, link with a 24-hour customer
 * token, prefill, coupon check, quote. Subscribe is in subscribe.ts, billing coupon in billing.ts.
 */
import { NotFound, ValidationError } from "../../errors.ts";
import { randomToken, sha256Hex } from "../secrets.ts";
import type { DomainEvent } from "../../events/outbox.ts";
import { checkCoupon, couponView, normalizeCouponCode, planView, type BillingCycle, type Coupon, type CouponRejection, type Plan } from "./catalog.ts";
import { priceFor, type Price } from "./pricing.ts";

/** Stored checkout customer data lives 24 hours, no longer. */
export const TOKEN_TTL_SECONDS = 24 * 3600;
/** 24 random bytes = 192 bits (≥ 128), 32 base64url characters. */
const TOKEN_BYTES = 24;
const TOKEN_FORMAT = /^[A-Za-z0-9_-]{22,128}$/;

export interface Customer {
  readonly name: string;
  readonly email: string;
  /** E.164. */
  readonly phone: string | null;
  /** 14 characters, no separators. */
  readonly cnpj: string | null;
}

export interface CatalogReader {
  getPlan(slug: string): Promise<Plan | undefined>;
  listPlans(): Promise<Plan[]>;
  getCoupon(code: string): Promise<Coupon | undefined>;
}

export interface TokenRecord {
  /** SHA-256 (hex) of the token; the token itself is never stored. */
  readonly hash: string;
  readonly customer: Customer;
  readonly plan: string;
  readonly billing_cycle: BillingCycle;
  readonly additional_inboxes: number;
  readonly coupon: string | null;
  readonly created_at: number;
  /** Unix seconds; also the table's TTL attribute. */
  readonly expiresAt: number;
}

export interface TokenStore {
  putToken(record: TokenRecord): Promise<void>;
  getToken(hash: string): Promise<TokenRecord | undefined>;
}

export interface Selection {
  readonly plan: string;
  readonly billing_cycle: BillingCycle;
  readonly additional_inboxes?: number | undefined;
  readonly coupon?: string | undefined;
}

const REASON_MESSAGES: Record<CouponRejection, string> = {
  not_found: "does not exist",
  expired: "has expired",
  not_applicable: "does not apply to this plan or billing cycle",
  exhausted: "has reached its maximum number of redemptions",
};

const sec = (now: Date): number => Math.floor(now.getTime() / 1000);

export async function listPublishedPlans(catalog: CatalogReader) {
  const plans = (await catalog.listPlans()).filter((p) => p.published);
  plans.sort((a, b) => a.sort_order - b.sort_order || a.prices.monthly - b.prices.monthly || a.slug.localeCompare(b.slug));
  return plans.map(planView);
}

/** A published plan, or the 422 naming `plan`. */
export async function requirePublishedPlan(catalog: CatalogReader, slug: string): Promise<Plan> {
  const plan = await catalog.getPlan(slug);
  if (!plan || !plan.published) throw ValidationError.field("plan", "inclusion", "is not a published plan");
  return plan;
}

/** The coupon if it applies, or the 422 naming `coupon` with the rejection reason as code. */
export async function requireCoupon(catalog: CatalogReader, code: string | undefined, plan: Plan, cycle: BillingCycle, now: Date): Promise<Coupon | undefined> {
  if (code === undefined) return undefined;
  const check = checkCoupon(await catalog.getCoupon(normalizeCouponCode(code)), plan, cycle, now);
  if (!check.ok) throw ValidationError.field("coupon", check.reason, REASON_MESSAGES[check.reason]);
  return check.coupon;
}

/** Plan + coupon + price of a selection (the same for link and subscribe). */
export async function priceSelection(catalog: CatalogReader, s: Selection, now: Date): Promise<{ plan: Plan; coupon: Coupon | undefined; price: Price }> {
  const plan = await requirePublishedPlan(catalog, s.plan);
  const coupon = await requireCoupon(catalog, s.coupon, plan, s.billing_cycle, now);
  return { plan, coupon, price: priceFor(plan, s.billing_cycle, s.additional_inboxes ?? 0, coupon) };
}

export interface LinkInput extends Selection {
  readonly customer?: Customer | undefined;
}

export interface Link {
  readonly url: string;
  readonly expires_at?: string;
  readonly price: Price;
}

/**
 * The checkout URL: `pageUrl?plan=&cycle=&inboxes=&coupon=&token=`. Customer data never goes
 * into it: it is stored under the SHA-256 of a random token for 24 hours.
 */
export async function createLink(deps: { catalog: CatalogReader; tokens: TokenStore; pageUrl: string }, input: LinkInput, now: Date): Promise<Link> {
  const { plan, coupon, price } = await priceSelection(deps.catalog, input, now);
  const url = new URL(deps.pageUrl);
  url.searchParams.set("plan", plan.slug);
  url.searchParams.set("cycle", input.billing_cycle);
  url.searchParams.set("inboxes", String(input.additional_inboxes ?? 0));
  if (coupon) url.searchParams.set("coupon", coupon.code);
  if (!input.customer) return { url: url.toString(), price };

  const token = randomToken(TOKEN_BYTES);
  const expiresAt = sec(now) + TOKEN_TTL_SECONDS;
  await deps.tokens.putToken({
    hash: sha256Hex(token),
    customer: input.customer,
    plan: plan.slug,
    billing_cycle: input.billing_cycle,
    additional_inboxes: input.additional_inboxes ?? 0,
    coupon: coupon?.code ?? null,
    created_at: sec(now),
    expiresAt,
  });
  url.searchParams.set("token", token);
  return { url: url.toString(), expires_at: new Date(expiresAt * 1000).toISOString(), price };
}

/** The live token record, or undefined (unknown, malformed or expired even if still stored). */
export async function findLiveToken(tokens: TokenStore, token: string | undefined, now: Date): Promise<TokenRecord | undefined> {
  // Stryker disable next-line ConditionalExpression: without this check `undefined` is tested as the string "undefined", which is not of the token's form either
  if (token === undefined) return undefined;
  if (!TOKEN_FORMAT.test(token)) return undefined;
  const record = await tokens.getToken(sha256Hex(token));
  return record && record.expiresAt > sec(now) ? record : undefined;
}

/** Token → customer data; unknown or expired → 404. */
export async function prefill(tokens: TokenStore, token: string | undefined, now: Date) {
  const record = await findLiveToken(tokens, token, now);
  if (!record) throw new NotFound();
  return { customer: record.customer, expires_at: new Date(record.expiresAt * 1000).toISOString() };
}

export interface CouponQuery {
  readonly code: string;
  readonly plan: string;
  readonly billing_cycle: BillingCycle;
  readonly additional_inboxes?: number | undefined;
}

export type CouponAnswer =
  | { readonly valid: true; readonly coupon: ReturnType<typeof couponView>; readonly price: Price }
  | { readonly valid: false; readonly reason: CouponRejection };

/** Prices a coupon on (plan, cycle, inboxes); the same answer subscribe would act on. */
export function answerCoupon(coupon: Coupon | undefined, plan: Plan, cycle: BillingCycle, additionalInboxes: number, now: Date): CouponAnswer {
  const check = checkCoupon(coupon, plan, cycle, now);
  if (!check.ok) return { valid: false, reason: check.reason };
  return { valid: true, coupon: couponView(check.coupon), price: priceFor(plan, cycle, additionalInboxes, check.coupon) };
}

export async function validateCoupon(catalog: CatalogReader, q: CouponQuery, now: Date): Promise<CouponAnswer> {
  const plan = await requirePublishedPlan(catalog, q.plan);
  const coupon = await catalog.getCoupon(normalizeCouponCode(q.code));
  return answerCoupon(coupon, plan, q.billing_cycle, q.additional_inboxes ?? 0, now);
}

export interface QuoteInput {
  readonly name: string;
  readonly email: string;
  readonly phone?: string | undefined;
  readonly company?: string | undefined;
  readonly cnpj?: string | undefined;
  readonly inboxes?: number | undefined;
  readonly agents?: number | undefined;
  readonly message: string;
}

export interface Quote {
  readonly id: number;
  readonly status: "received";
  readonly name: string;
  readonly email: string;
  readonly phone: string | null;
  readonly company: string | null;
  readonly cnpj: string | null;
  readonly inboxes: number | null;
  readonly agents: number | null;
  readonly message: string;
  readonly created_at: number;
}

export interface QuoteStore {
  nextQuoteId(): Promise<number>;
  /** The quote and its `quote_requested` outbox item in one transaction. */
  insertQuote(quote: Quote, events: readonly DomainEvent[]): Promise<void>;
}

/** Operator events carry no customer account: accountId 0. */
export const NO_ACCOUNT = 0;

export async function requestQuote(store: QuoteStore, input: QuoteInput, now: Date) {
  const quote: Quote = {
    id: await store.nextQuoteId(),
    status: "received",
    name: input.name,
    email: input.email,
    phone: input.phone ?? null,
    company: input.company ?? null,
    cnpj: input.cnpj ?? null,
    inboxes: input.inboxes ?? null,
    agents: input.agents ?? null,
    message: input.message,
    created_at: sec(now),
  };
  await store.insertQuote(quote, [{ event: "quote_requested", accountId: NO_ACCOUNT, payload: { ...quote, event: "quote_requested", id: String(quote.id) } }]);
  return { id: quote.id, status: quote.status, created_at: quote.created_at };
}
