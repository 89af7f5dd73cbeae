/**
 * Subscribe: account, administrator user, membership, API key, subscription
 * (`pending_payment`) and the coupon redemption in ONE transaction, or nothing at all; the
 * `subscription_created` operator event rides in the same transaction (outbox).
 */
import { Conflict, IdempotencyInProgress, ValidationError } from "../../errors.ts";
import { hashPassword } from "../passwords.ts";
import { newApiKey } from "../secrets.ts";
import type { DomainEvent } from "../../events/outbox.ts";
import type { BillingCycle } from "./catalog.ts";
import { findLiveToken, priceSelection, type CatalogReader, type Customer, type Selection, type TokenStore } from "./checkout.ts";
import { fingerprint, IDEMPOTENCY_TTL_SECONDS, seal, unseal, type IdempotencyRecord } from "./idempotency.ts";
import type { Price } from "./pricing.ts";

export interface SubscribeInput extends Selection {
  readonly account_name: string;
  readonly user: { readonly name: string; readonly email: string; readonly password: string };
  readonly customer: Customer;
  readonly token?: string | undefined;
  /** The new account's language (Chatwoot's locale code); the checkout page sends its own. */
  readonly locale?: string | undefined;
}

/** An account's language when subscribe names none (and the demo account's). */
export const DEFAULT_LOCALE = "en";

export interface Subscription {
  readonly id: number;
  readonly account_id: number;
  readonly status: "pending_payment" | "active" | "canceled";
  readonly plan: string;
  readonly billing_cycle: BillingCycle;
  readonly additional_inboxes: number;
  readonly coupon: string | null;
  readonly price: Price;
  readonly customer: Customer;
  readonly created_at: number;
}

export interface SubscribeReply {
  readonly account: { readonly id: number; readonly name: string };
  readonly user: { readonly id: number; readonly name: string; readonly email: string };
  readonly subscription: {
    readonly id: number;
    readonly status: Subscription["status"];
    readonly plan: string;
    readonly billing_cycle: BillingCycle;
    readonly additional_inboxes: number;
    readonly coupon: string | null;
    readonly price: Price;
  };
  readonly access_token: string;
}

/** Everything the one transaction writes. */
export interface NewSubscription {
  readonly account: { readonly id: number; readonly name: string; readonly locale: string };
  readonly user: { readonly id: number; readonly name: string; readonly email: string; readonly passwordHash: string };
  readonly apiKey: { readonly key: string; readonly hash: string; readonly prefix: string };
  readonly subscription: Subscription;
  /** Coupon whose redemption count goes up (conditional on staying within its maximum). */
  readonly redeem: string | null;
  /** The checkout token used, deleted with the rest (its customer data is no longer needed). */
  readonly tokenHash: string | null;
  readonly idempotency: IdempotencyRecord | null;
  readonly nowSec: number;
  readonly events: readonly DomainEvent[];
}

export type CreateOutcome = "created" | "email_taken" | "coupon_exhausted" | "idempotency_taken";

export interface SubscribeStore extends CatalogReader, TokenStore {
  nextIds(): Promise<{ accountId: number; userId: number; subscriptionId: number }>;
  getIdempotency(key: string): Promise<IdempotencyRecord | undefined>;
  createSubscription(s: NewSubscription): Promise<CreateOutcome>;
}

export interface SubscribeResult {
  readonly reply: SubscribeReply;
  /** True when this is the stored first reply of the same Idempotency-Key. */
  readonly replayed: boolean;
}

const sec = (now: Date): number => Math.floor(now.getTime() / 1000);

/** What decides "same body" (no password) and what opens the sealed reply (with it). */
function bodyParts(input: SubscribeInput) {
  const { user, ...rest } = input;
  // Stryker disable next-line ObjectLiteral: a smaller public part only lets more bodies reach the unsealing, and the reply's key is derived from the whole body, so another body is refused (409) all the same
  const publicPart = { ...rest, user: { name: user.name, email: user.email } };
  return { publicPart, secretPart: input };
}

async function replay(store: SubscribeStore, key: string, input: SubscribeInput, now: Date): Promise<SubscribeResult | undefined> {
  const record = await store.getIdempotency(key);
  if (!record || record.expiresAt <= sec(now)) return undefined;
  const { publicPart, secretPart } = bodyParts(input);
  // Another body fails to unseal the reply as well (its key is derived from the whole body): the fingerprint only spares that work.
  // Stryker disable next-line ConditionalExpression: always unsealing gives the same 409 for another body
  const reply = record.fingerprint === fingerprint(publicPart) ? await unseal(record.sealed, secretPart) : undefined;
  if (reply === undefined) throw new Conflict("Idempotency-Key was already used with a different request body", "idempotency_mismatch");
  return { reply: reply as SubscribeReply, replayed: true };
}

export async function subscribe(store: SubscribeStore, input: SubscribeInput, idempotencyKey: string | undefined, now: Date): Promise<SubscribeResult> {
  if (idempotencyKey !== undefined) {
    const first = await replay(store, idempotencyKey, input, now);
    if (first) return first;
  }
  const { plan, coupon, price } = await priceSelection(store, input, now);
  const token = await findLiveToken(store, input.token, now);
  const [ids, passwordHash] = await Promise.all([store.nextIds(), hashPassword(input.user.password)]);
  const apiKey = newApiKey(ids.userId);
  const nowSec = sec(now);
  const additional = input.additional_inboxes ?? 0;
  const subscription: Subscription = {
    id: ids.subscriptionId,
    account_id: ids.accountId,
    status: "pending_payment",
    plan: plan.slug,
    billing_cycle: input.billing_cycle,
    additional_inboxes: additional,
    coupon: coupon?.code ?? null,
    price,
    customer: input.customer,
    created_at: nowSec,
  };
  const account = { id: ids.accountId, name: input.account_name };
  const user = { id: ids.userId, name: input.user.name, email: input.user.email };
  const { customer: _customer, account_id: _accountId, created_at: _createdAt, ...subscriptionView } = subscription;
  const reply: SubscribeReply = { account, user, subscription: subscriptionView, access_token: apiKey.key };
  const { publicPart, secretPart } = bodyParts(input);
  const idempotency: IdempotencyRecord | null =
    idempotencyKey === undefined
      ? null
      : { key: idempotencyKey, fingerprint: fingerprint(publicPart), sealed: await seal(reply, secretPart), expiresAt: nowSec + IDEMPOTENCY_TTL_SECONDS };

  const outcome = await store.createSubscription({
    account: { ...account, locale: input.locale ?? DEFAULT_LOCALE },
    user: { ...user, passwordHash },
    apiKey,
    subscription,
    redeem: coupon?.code ?? null,
    tokenHash: token?.hash ?? null,
    idempotency,
    nowSec,
    events: [
      {
        event: "subscription_created",
        accountId: account.id,
        payload: { event: "subscription_created", id: String(subscription.id), account, user, subscription: { ...subscriptionView, customer: input.customer, created_at: nowSec } },
      },
    ],
  });
  switch (outcome) {
    case "created":
      return { reply, replayed: false };
    case "email_taken":
      throw ValidationError.field("user.email", "taken", "has already been taken");
    case "coupon_exhausted":
      throw ValidationError.field("coupon", "exhausted", "has reached its maximum number of redemptions");
    case "idempotency_taken": {
      // A concurrent request with the same key committed first: answer as it did. The write has just
      // found its record live at `now` and the read is consistent, so the replay finds it; the 409
      // below is a guard, not a path taken.
      const first = await replay(store, idempotencyKey!, input, now);
      // Stryker disable next-line ConditionalExpression: `first` is always set here (see above)
      if (first) return first;
      throw new IdempotencyInProgress();
    }
  }
}
