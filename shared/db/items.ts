/**
 * Small helpers shared by the repositories: strip key attributes, optimistic revisions,
 * transactions that carry outbox items, per-account id counters.
 */
import { randomUUID } from "node:crypto";
import { GetCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import type { TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { cancelledOnCondition, db, isConditionalFailure, mainTableName } from "./client.ts";
import { Stale } from "../errors.ts";
import { keys } from "./keys.ts";
import { outboxItem, type DomainEvent } from "../events/outbox.ts";

type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];
export type { TransactItem };

const INTERNAL = new Set(["pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "entity", "rev", "expiresAt"]);

/** The domain view of an item: key and bookkeeping attributes removed. */
export function strip<T>(item: Record<string, unknown>): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(item)) if (!INTERNAL.has(k)) out[k] = v;
  return out as T;
}

/** Remembers the revision an object was read at, so an update can be conditional on it. */
const revisions = new WeakMap<object, string>();
export const newRev = (): string => randomUUID();
export function remember<T extends object>(obj: T, rev: unknown): T {
  if (typeof rev === "string") revisions.set(obj, rev);
  return obj;
}
export const revOf = (obj: object): string | undefined => revisions.get(obj);

/** Condition for "unchanged since read" on an item written with `rev`. */
export function unchangedSince(obj: object) {
  const rev = revOf(obj);
  return rev
    ? { ConditionExpression: "rev = :rev", ExpressionAttributeValues: { ":rev": rev } }
    : { ConditionExpression: "attribute_exists(pk)" };
}

export function putOutbox(events: readonly DomainEvent[], nowMs = Date.now()): TransactItem[] {
  return events.map((e) => ({ Put: { TableName: mainTableName(), Item: outboxItem(e, nowMs) } }));
}

/** One TransactWriteItems: the state change and its outbox items are one fact. */
export async function transact(items: TransactItem[], events: readonly DomainEvent[] = []): Promise<void> {
  await db().send(new TransactWriteCommand({ TransactItems: [...items, ...putOutbox(events)] }));
}

export async function getItem(key: { pk: string; sk: string }, consistent = true): Promise<Record<string, unknown> | undefined> {
  const out = await db().send(new GetCommand({ TableName: mainTableName(), Key: key, ConsistentRead: consistent }));
  return out.Item;
}

/** Atomic counter: the next integer for `name` (1, 2, 3...). */
export async function nextId(key: { pk: string; sk: string }): Promise<number> {
  const out = await db().send(
    new UpdateCommand({
      TableName: mainTableName(),
      Key: key,
      UpdateExpression: "ADD #v :one",
      ExpressionAttributeNames: { "#v": "value" },
      ExpressionAttributeValues: { ":one": 1 },
      ReturnValues: "UPDATED_NEW",
    }),
  );
  return Number(out.Attributes?.["value"]);
}

export const nextAccountScopedId = (accountId: number, name: string) => nextId(keys.accountCounter(accountId, name));
export const nextGlobalId = (name: string) => nextId(keys.globalCounter(name));

/** True when a transaction was cancelled because another transaction held one of its items. */
export function cancelledOnConflict(err: unknown): boolean {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  return e?.name === "TransactionCanceledException" && (e.CancellationReasons ?? []).some((r) => r?.Code === "TransactionConflict");
}

/**
 * An optimistic write that lost the race (its revision condition failed, or a concurrent
 * transaction held one of its items) becomes Stale, which the use case retries on fresh state
 * (domain/retry.ts) and the client sees only past the last attempt.
 */
export async function guardConcurrent<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (cancelledOnCondition(err) || isConditionalFailure(err) || cancelledOnConflict(err)) throw new Stale();
    throw err;
  }
}
