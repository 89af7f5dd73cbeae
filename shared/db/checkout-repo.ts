/**
 * DynamoDB side of the checkout: customer tokens, the subscribe transaction, subscriptions,
 * Idempotency-Key records and quotes.
 */
import { GetCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import type { BillingStore } from "../domain/checkout/billing.ts";
import type { QuoteStore, TokenRecord } from "../domain/checkout/checkout.ts";
import type { IdempotencyRecord } from "../domain/checkout/idempotency.ts";
import type { CreateOutcome, NewSubscription, Subscription, SubscribeStore } from "../domain/checkout/subscribe.ts";
import { accountItem, apiKeyItems, memberItem, userItems } from "./accounts-repo.ts";
import { catalogRepo } from "./catalog-repo.ts";
import { db, failedConditionIndexes, mainTableName } from "./client.ts";
import { getItem, nextGlobalId, strip, transact, type TransactItem } from "./items.ts";
import { checkoutKeys } from "./keys.ts";
import { ServiceUnavailable } from "../errors.ts";

const SUBSCRIBE_SCOPE = "checkout_subscribe";
/**
 * How long the subscribe transaction is retried while DynamoDB reports conflicting transactions
 * (concurrent subscribes redeeming the same coupon). Full-jitter backoff, capped; then a 503 the
 * client retries (safely, with its Idempotency-Key). Below the route's Lambda timeout.
 */
const CONFLICT_DEADLINE_MS = 8_000;
const CONFLICT_BACKOFF_CAP_MS = 1_000;

function cancellationCodes(err: unknown): string[] | undefined {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === "TransactionCanceledException" ? (e.CancellationReasons ?? []).map((r) => r?.Code ?? "None") : undefined;
}

const isTransactionConflict = (err: unknown): boolean => {
  const name = (err as { name?: string })?.name;
  return name === "TransactionConflictException" || (cancellationCodes(err) ?? []).some((c) => c === "TransactionConflict");
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function subscribeItems(s: NewSubscription): { items: TransactItem[]; roles: Map<number, Exclude<CreateOutcome, "created">> } {
  const table = mainTableName();
  const absent = "attribute_not_exists(pk)";
  const { user, emailMarker } = userItems(s.user.id, { name: s.user.name, email: s.user.email, passwordHash: s.user.passwordHash, nowSec: s.nowSec });
  const key = apiKeyItems(s.user.id, "checkout", s.nowSec, s.apiKey);
  const items: TransactItem[] = [
    { Put: { TableName: table, Item: accountItem(s.account.id, s.account.name, s.nowSec, s.account.locale), ConditionExpression: absent } },
    { Put: { TableName: table, Item: user, ConditionExpression: absent } },
    { Put: { TableName: table, Item: emailMarker, ConditionExpression: absent } },
    { Put: { TableName: table, Item: memberItem(s.account.id, s.user.id, "administrator", s.nowSec) } },
    ...key.items.map((Item) => ({ Put: { TableName: table, Item, ConditionExpression: absent } })),
    { Put: { TableName: table, Item: { ...checkoutKeys.subscription(s.account.id), entity: "subscription", ...s.subscription }, ConditionExpression: absent } },
  ];
  const roles = new Map<number, Exclude<CreateOutcome, "created">>([[2, "email_taken"]]);
  if (s.redeem !== null) {
    roles.set(items.length, "coupon_exhausted");
    items.push({
      Update: {
        TableName: table,
        Key: checkoutKeys.coupon(s.redeem),
        UpdateExpression: "SET redemptions = if_not_exists(redemptions, :zero) + :one",
        ConditionExpression: "attribute_exists(pk) AND (attribute_type(max_redemptions, :null) OR redemptions < max_redemptions)",
        ExpressionAttributeValues: { ":zero": 0, ":one": 1, ":null": "NULL" },
      },
    });
  }
  if (s.idempotency !== null) {
    roles.set(items.length, "idempotency_taken");
    items.push({
      Put: {
        TableName: table,
        Item: { ...checkoutKeys.idempotency(SUBSCRIBE_SCOPE, s.idempotency.key), entity: "idempotency", ...s.idempotency },
        // An expired record DynamoDB has not deleted yet does not hold the key.
        ConditionExpression: "attribute_not_exists(pk) OR expiresAt <= :now",
        ExpressionAttributeValues: { ":now": s.nowSec },
      },
    });
  }
  if (s.tokenHash !== null) items.push({ Delete: { TableName: table, Key: checkoutKeys.checkoutToken(s.tokenHash) } });
  return { items, roles };
}

export const checkoutRepo: SubscribeStore & BillingStore & QuoteStore = {
  ...catalogRepo,

  async putToken(record: TokenRecord) {
    await db().send(new PutCommand({ TableName: mainTableName(), Item: { ...checkoutKeys.checkoutToken(record.hash), entity: "checkout_token", ...record } }));
  },

  async getToken(hash) {
    const item = await getItem(checkoutKeys.checkoutToken(hash));
    return item ? { ...strip<TokenRecord>(item), expiresAt: Number(item["expiresAt"]) } : undefined;
  },

  async nextIds() {
    const [accountId, userId, subscriptionId] = await Promise.all([nextGlobalId("account"), nextGlobalId("user"), nextGlobalId("subscription")]);
    return { accountId, userId, subscriptionId };
  },

  async getIdempotency(key) {
    const out = await db().send(new GetCommand({ TableName: mainTableName(), Key: checkoutKeys.idempotency(SUBSCRIBE_SCOPE, key), ConsistentRead: true }));
    if (!out.Item) return undefined;
    const i = out.Item;
    return { key: String(i["key"]), fingerprint: String(i["fingerprint"]), sealed: String(i["sealed"]), expiresAt: Number(i["expiresAt"]) } satisfies IdempotencyRecord;
  },

  async createSubscription(s) {
    const { items, roles } = subscribeItems(s);
    const deadline = Date.now() + CONFLICT_DEADLINE_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        await transact(items, s.events);
        return "created";
      } catch (err) {
        const failed = failedConditionIndexes(err).map((i) => roles.get(i)).filter((r) => r !== undefined);
        // Precedence: a duplicate request first (it also "took" the e-mail), then e-mail, then coupon.
        for (const outcome of ["idempotency_taken", "email_taken", "coupon_exhausted"] as const) if (failed.includes(outcome)) return outcome;
        if (!isTransactionConflict(err)) throw err;
        if (Date.now() >= deadline) throw new ServiceUnavailable(1, "Too many concurrent subscriptions; retry with the same Idempotency-Key");
        await sleep(Math.random() * Math.min(CONFLICT_BACKOFF_CAP_MS, 20 * 2 ** attempt));
      }
    }
  },

  async getSubscription(accountId) {
    const item = await getItem(checkoutKeys.subscription(accountId));
    return item ? strip<Subscription>(item) : undefined;
  },

  nextQuoteId: () => nextGlobalId("quote"),

  async insertQuote(quote, events) {
    await transact([{ Put: { TableName: mainTableName(), Item: { ...checkoutKeys.quote(quote.id), entity: "quote", ...quote }, ConditionExpression: "attribute_not_exists(pk)" } }], events);
  },
};
