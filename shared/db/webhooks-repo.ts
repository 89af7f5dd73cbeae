/** Webhooks, their url markers and their deliveries in the main table. */
import { BatchGetCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { urlHash, UrlTaken, WEBHOOK_DEFAULTS, type InboxRef, type Webhook, type WebhookStore } from "../domain/webhooks.ts";
import { DELIVERY_TTL_SECONDS, type Delivery, type DeliveryStore, type HealthStore } from "../domain/deliveries.ts";
import type { RecoveryKey, RecoveryStore, StoredRecovery } from "../domain/delivery-recovery.ts";
import { db, failedConditionIndexes, isConditionalFailure, mainTableName } from "./client.ts";
import { getItem, guardConcurrent, newRev, nextAccountScopedId, remember, strip, transact, unchangedSince, type TransactItem } from "./items.ts";
import { keys } from "./keys.ts";
import { ValidationError } from "../errors.ts";
import { queryPrefix } from "./query.ts";
import { OUTBOX_TTL_SECONDS } from "../events/outbox.ts";

const toWebhook = (item: Record<string, unknown>): Webhook => remember({ ...WEBHOOK_DEFAULTS, ...strip<Webhook>(item) }, item["rev"]);

function webhookItem(w: Webhook) {
  return { ...keys.webhook(w.account_id, w.id), entity: "webhook", rev: newRev(), ...w };
}

function markerPut(w: Webhook): TransactItem {
  return {
    Put: {
      TableName: mainTableName(),
      Item: { ...keys.webhookUrl(w.account_id, urlHash(w.url)), entity: "webhook_url", accountId: w.account_id, webhookId: w.id },
      ConditionExpression: "attribute_not_exists(pk)",
    },
  };
}

function markerDelete(w: Webhook): TransactItem {
  return {
    Delete: {
      TableName: mainTableName(),
      Key: keys.webhookUrl(w.account_id, urlHash(w.url)),
      ConditionExpression: "webhookId = :w",
      ExpressionAttributeValues: { ":w": w.id },
    },
  };
}

const isTxConflict = (err: unknown): boolean => {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === "TransactionCanceledException" && (e.CancellationReasons ?? []).some((r) => r?.Code === "TransactionConflict");
};

/**
 * Runs a transaction whose `markerIndex` item is the url marker: a failed condition there is
 * UrlTaken. Two concurrent transactions on one marker may be cancelled as a TransactionConflict
 * instead: retried, so that the loser then fails on the marker's condition (422), never a 500.
 */
async function writeWithMarker(items: TransactItem[], markerIndex: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await transact(items);
      return;
    } catch (err) {
      if (markerIndex >= 0 && failedConditionIndexes(err).includes(markerIndex)) throw new UrlTaken();
      if (isTxConflict(err) && attempt < 5) {
        await new Promise((r) => setTimeout(r, 10 * attempt + Math.random() * 20));
        continue;
      }
      throw err;
    }
  }
}

export const webhooksRepo: WebhookStore = {
  nextWebhookId: (accountId) => nextAccountScopedId(accountId, "webhook"),

  async insertWebhook(w) {
    await writeWithMarker([{ Put: { TableName: mainTableName(), Item: webhookItem(w), ConditionExpression: "attribute_not_exists(pk)" } }, markerPut(w)], 1);
  },

  async getWebhook(accountId, webhookId) {
    const item = await getItem(keys.webhook(accountId, webhookId));
    return item ? toWebhook(item) : undefined;
  },

  async listWebhooks(accountId) {
    const k = keys.webhookPrefix(accountId);
    return (await queryPrefix(k.pk, k.skPrefix, { consistent: true })).map(toWebhook);
  },

  async replaceWebhook(prev, next) {
    const put: TransactItem = { Put: { TableName: mainTableName(), Item: webhookItem(next), ...unchangedSince(prev) } };
    const moved = urlHash(prev.url) !== urlHash(next.url);
    await guardConcurrent(() => writeWithMarker(moved ? [put, markerDelete(prev), markerPut(next)] : [put], moved ? 2 : -1));
  },

  async deleteWebhook(w) {
    await guardConcurrent(() =>
      transact([{ Delete: { TableName: mainTableName(), Key: keys.webhook(w.account_id, w.id), ConditionExpression: "attribute_exists(pk)" } }, markerDelete(w)]),
    );
  },

  async getInboxRef(accountId, inboxId) {
    const item = await getItem(keys.inbox(accountId, inboxId), false);
    return item ? { id: Number(item["id"]), name: String(item["name"]) } : undefined;
  },

  async listInboxRefs(accountId) {
    const k = keys.inboxPrefix(accountId);
    const items = await queryPrefix(k.pk, k.skPrefix, { projection: { expression: "id, #n", names: { "#n": "name" } } });
    return items.map((i): InboxRef => ({ id: Number(i["id"]), name: String(i["name"]) }));
  },
};

// Deliveries -----------------------------------------------------------------------------

const nowSec = () => Math.floor(Date.now() / 1000);

function deliveryItem(d: Delivery) {
  return {
    ...keys.delivery(d.id),
    ...keys.deliveryGsi1(d.account_id, d.webhook_id, d.created_at * 1000, d.id),
    entity: "delivery",
    ...d,
    expiresAt: d.updated_at + DELIVERY_TTL_SECONDS,
  };
}

/** Expired items may linger (DynamoDB deletes them lazily): every read checks expiresAt itself. */
function live(item: Record<string, unknown> | undefined, now = nowSec()): Record<string, unknown> | undefined {
  return item && Number(item["expiresAt"] ?? Infinity) > now ? item : undefined;
}

const toDelivery = (item: Record<string, unknown>): Delivery => strip<Delivery>(item);

const ignoreConditionFailure = async (write: () => Promise<unknown>): Promise<boolean> => {
  try {
    await write();
    return true;
  } catch (err) {
    if (isConditionalFailure(err)) return false;
    throw err;
  }
};

const encodeCursor = (k: Record<string, unknown>): string => Buffer.from(JSON.stringify(k)).toString("base64url");
function decodeCursor(c: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(Buffer.from(c, "base64url").toString("utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The start key a delivery log cursor stands for: exactly the four keys of a delivery of this
 * webhook's log (a cursor of another list, or one made up, is a 422, never a query DynamoDB
 * refuses nor a read outside the log).
 */
function deliveryStartKey(cursor: string, log: { gsi1pk: string; skPrefix: string }): Record<string, string> {
  const key = decodeCursor(cursor);
  const fields = key ? Object.keys(key).sort().join() : "";
  const valid =
    key !== undefined &&
    fields === "gsi1pk,gsi1sk,pk,sk" &&
    Object.values(key).every((v) => typeof v === "string" && v.length > 0 && v.length <= 300) &&
    key["gsi1pk"] === log.gsi1pk &&
    String(key["gsi1sk"]).startsWith(log.skPrefix);
  if (!valid) throw ValidationError.field("cursor", "invalid", "is invalid");
  return key as Record<string, string>;
}

export const deliveriesRepo: DeliveryStore = {
  async fannedOut(eventId) {
    return live(await getItem(keys.fanout(eventId))) !== undefined;
  },

  async markFannedOut(eventId, accountId, nowMs) {
    // Lives as long as the outbox item it marks: a replay after that finds no event anyway.
    const expiresAt = Math.floor(nowMs / 1000) + OUTBOX_TTL_SECONDS;
    await db().send(new PutCommand({ TableName: mainTableName(), Item: { ...keys.fanout(eventId), entity: "fanout", accountId, expiresAt } }));
  },

  async insertDeliveries(deliveries) {
    await Promise.all(
      deliveries.map((d) =>
        ignoreConditionFailure(() => db().send(new PutCommand({ TableName: mainTableName(), Item: deliveryItem(d), ConditionExpression: "attribute_not_exists(pk)" }))),
      ),
    );
  },

  async loadForAttempt(msg) {
    const table = mainTableName();
    const out = await db().send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: [keys.delivery(msg.deliveryId), keys.webhook(msg.accountId, msg.webhookId)], ConsistentRead: true } } }),
    );
    const items = out.Responses?.[table] ?? [];
    const d = live(items.find((i) => i["entity"] === "delivery"));
    const w = items.find((i) => i["entity"] === "webhook");
    return { ...(d ? { delivery: toDelivery(d) } : {}), ...(w ? { webhook: toWebhook(w) } : {}) };
  },

  async recordAttempt(prev, next, isNew) {
    try {
      await db().send(
        new PutCommand({
          TableName: mainTableName(),
          Item: deliveryItem(next),
          ...(isNew
            ? { ConditionExpression: "attribute_not_exists(pk)" }
            : { ConditionExpression: "seq = :seq AND attempts = :attempts", ExpressionAttributeValues: { ":seq": prev.seq, ":attempts": prev.attempts } }),
        }),
      );
      return true;
    } catch (err) {
      if (isConditionalFailure(err)) return false;
      throw err;
    }
  },

  async getDelivery(deliveryId) {
    const item = live(await getItem(keys.delivery(deliveryId)));
    return item ? toDelivery(item) : undefined;
  },

  async replaceDelivery(prev, next) {
    await guardConcurrent(() =>
      db().send(
        new PutCommand({
          TableName: mainTableName(),
          Item: deliveryItem(next),
          ConditionExpression: "seq = :seq AND attempts = :attempts",
          ExpressionAttributeValues: { ":seq": prev.seq, ":attempts": prev.attempts },
        }),
      ),
    );
  },

  async listDeliveries(accountId, webhookId, page, now) {
    const k = keys.deliveryGsi1Prefix(accountId, webhookId);
    const base: QueryCommandInput = {
      TableName: mainTableName(),
      IndexName: "gsi1",
      KeyConditionExpression: "gsi1pk = :pk AND begins_with(gsi1sk, :p)",
      FilterExpression: "expiresAt > :now",
      ExpressionAttributeValues: { ":pk": k.gsi1pk, ":p": k.skPrefix, ":now": now },
      ScanIndexForward: false,
    };
    const start = page.cursor ? deliveryStartKey(page.cursor, k) : undefined;
    const skip = start ? 0 : (page.page - 1) * page.per;
    const wanted = skip + page.per;
    const items: Record<string, unknown>[] = [];
    let from = start;
    // Read until one item past the page (to know has_more), or the end.
    while (items.length <= wanted) {
      const out = await db().send(new QueryCommand({ ...base, ExclusiveStartKey: from, Limit: Math.min(100, wanted + 1 - items.length) }));
      items.push(...(out.Items ?? []));
      from = out.LastEvaluatedKey;
      if (!from) break;
    }
    const pageItems = items.slice(skip, wanted);
    const hasMore = items.length > wanted;
    const last = pageItems.at(-1);
    const count = await countLive(base);
    return {
      items: pageItems.map(toDelivery),
      count,
      hasMore,
      nextCursor: hasMore && last ? encodeCursor({ pk: last["pk"], sk: last["sk"], gsi1pk: last["gsi1pk"], gsi1sk: last["gsi1sk"] }) : null,
    };
  },
};

async function countLive(base: QueryCommandInput): Promise<number> {
  let count = 0;
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...base, Select: "COUNT", ExclusiveStartKey: start }));
    count += out.Count ?? 0;
    start = out.LastEvaluatedKey;
  } while (start);
  return count;
}

// Health ---------------------------------------------------------------------------------
// Each write is conditional on the state the attempt saw, so concurrent attempts write at most
// once per transition; each bumps `rev`, so that an administrator's PATCH read before it fails
// (409) instead of writing the old health back.

const webhookUpdate = (w: Webhook, set: string, condition: string, values: Record<string, unknown>) =>
  new UpdateCommand({
    TableName: mainTableName(),
    Key: keys.webhook(w.account_id, w.id),
    UpdateExpression: `SET rev = :rev, ${set}`,
    ConditionExpression: `attribute_exists(pk) AND ${condition}`,
    ExpressionAttributeValues: { ":rev": newRev(), ...values },
  });

export const healthRepo: HealthStore = {
  async markFailing(w, sinceSec) {
    await ignoreConditionFailure(() =>
      db().send(webhookUpdate(w, "failing_since = :s", "(attribute_not_exists(failing_since) OR failing_since = :null)", { ":s": sinceSec, ":null": null })),
    );
  },

  async clearFailing(w) {
    await ignoreConditionFailure(() => db().send(webhookUpdate(w, "failing_since = :null", "failing_since = :seen", { ":null": null, ":seen": w.failing_since })));
  },

  async disable(w, reason, atSec, event) {
    try {
      await transact(
        [
          {
            Update: {
              TableName: mainTableName(),
              Key: keys.webhook(w.account_id, w.id),
              UpdateExpression: "SET rev = :rev, #st = :disabled, disabled_reason = :reason, disabled_at = :at",
              ConditionExpression: "attribute_exists(pk) AND (attribute_not_exists(#st) OR #st = :active) AND failing_since = :seen",
              ExpressionAttributeNames: { "#st": "status" },
              ExpressionAttributeValues: { ":rev": newRev(), ":disabled": "disabled", ":active": "active", ":reason": reason, ":at": atSec, ":seen": w.failing_since },
            },
          },
        ],
        [event],
      );
      return true;
    } catch (err) {
      if (failedConditionIndexes(err).includes(0) || isTxConflict(err)) return false;
      throw err;
    }
  },
};

// Recovery -------------------------------------------------------------------------------

const recoveryKey = (k: RecoveryKey) => keys.recovery(k.accountId, k.webhookId, k.since, k.until);

export const recoveryRepo: RecoveryStore = {
  async getRecovery(k) {
    const out = await db().send(new GetCommand({ TableName: mainTableName(), Key: recoveryKey(k), ConsistentRead: true }));
    const i = out.Item;
    if (!i) return undefined;
    return {
      state: { cursor: (i["cursor"] as string | null) ?? null, recovered: Number(i["recovered"] ?? 0), done: i["done"] === true },
      owner: String(i["owner"]),
      leaseUntilMs: Number(i["leaseUntilMs"] ?? 0),
    } satisfies StoredRecovery;
  },

  async putRecovery(k, state, owner, leaseUntilMs, expectedOwner) {
    const item = { ...recoveryKey(k), entity: "recovery", ...state, owner, leaseUntilMs, expiresAt: Math.floor(Date.now() / 1000) + DELIVERY_TTL_SECONDS };
    return ignoreConditionFailure(() =>
      db().send(
        new PutCommand({
          TableName: mainTableName(),
          Item: item,
          ...(expectedOwner === null
            ? { ConditionExpression: "attribute_not_exists(pk)" }
            : { ConditionExpression: "#o = :o", ExpressionAttributeNames: { "#o": "owner" }, ExpressionAttributeValues: { ":o": expectedOwner } }),
        }),
      ),
    );
  },

  async recoveryPage(k, cursor, limit, now) {
    const p = keys.deliveryGsi1Prefix(k.accountId, k.webhookId);
    const sk = (sec: number) => `${p.skPrefix}${(sec * 1000).toString().padStart(15, "0")}`;
    const out = await db().send(
      new QueryCommand({
        TableName: mainTableName(),
        IndexName: "gsi1",
        KeyConditionExpression: "gsi1pk = :pk AND gsi1sk BETWEEN :from AND :to",
        FilterExpression: "expiresAt > :now AND #st IN (:failed, :skipped)",
        ExpressionAttributeNames: { "#st": "status" },
        ExpressionAttributeValues: { ":pk": p.gsi1pk, ":from": sk(k.since), ":to": `${sk(k.until)}#~`, ":now": now, ":failed": "failed", ":skipped": "skipped" },
        ExclusiveStartKey: cursor ? decodeCursor(cursor) : undefined,
        Limit: limit,
      }),
    );
    return { items: (out.Items ?? []).map(toDelivery), next: out.LastEvaluatedKey ? encodeCursor(out.LastEvaluatedKey) : null };
  },

  async restartDelivery(prev, next) {
    return ignoreConditionFailure(() =>
      db().send(
        new PutCommand({
          TableName: mainTableName(),
          Item: deliveryItem(next),
          ConditionExpression: "seq = :seq AND attempts = :attempts AND #st = :st",
          ExpressionAttributeNames: { "#st": "status" },
          ExpressionAttributeValues: { ":seq": prev.seq, ":attempts": prev.attempts, ":st": prev.status },
        }),
      ),
    );
  },
};
