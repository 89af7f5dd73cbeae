/** Contacts, their uniqueness markers and their search postings (shared/domain/search-index.ts). */
import { DeleteCommand, QueryCommand, TransactWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { Contact, ContactStore } from "../domain/contacts.ts";
import { ValidationError } from "../domain/errors.ts";
import type { DomainEvent } from "../events/outbox.ts";
import { candidatesOf, type SearchPlan } from "../domain/search-index.ts";
import { accountsRepo } from "./accounts-repo.ts";
import { cancelledOnCondition, db, failedConditionIndexes, isConditionalFailure, mainTableName } from "./client.ts";
import { getItem, guardConcurrent, newRev, nextAccountScopedId, remember, revOf, strip, transact, type TransactItem } from "./items.ts";
import { keys, pad } from "./keys.ts";
import { batchGet, prefixRange, queryAll, readRange } from "./query.ts";

const TX_LIMIT = 100;
const UPDATABLE = ["name", "email", "phone_number", "identifier", "custom_attributes", "additional_attributes", "updated_at"] as const;
/**
 * Posting lists are read in rounds (first page, then x4 up to the max); the first exhausted list
 * bounds the candidates. A first page of 200 sk-only postings (~6 KB) costs DynamoDB Local about
 * what 40 do (4.4 ms for 40, 5.2 for 250, 8.2 for 400 on one run) and spares most searches a round.
 */
const POSTING_FIRST_PAGE = 200;
const POSTING_MAX_PAGE = 1000;
const CONTACT_ID_MAX = 9_999_999_999;

export const toContact = (item: Record<string, unknown>): Contact => remember(strip<Contact>(item), item["rev"]);

const contactPut = (c: Contact, rev: string) => ({ ...keys.contact(c.account_id, c.id), entity: "contact", rev, ...c });

const posting = (accountId: number, tri: string, contactId: number, ver?: number) => ({
  ...keys.contactTrigram(accountId, tri, contactId),
  entity: "contact_tri",
  contactId,
  ...(ver !== undefined ? { ver } : {}),
});

const taken = (field: "email" | "identifier") => ValidationError.field(field, "taken", "has already been taken");

type Marker = { field: "email" | "identifier"; index: number };

/**
 * Every item of a new contact (contact, uniqueness markers, search postings) without the counter
 * and the outbox: for bulk seeding (sandbox benchmarks). Requests go through insertContact.
 */
export function contactSeedItems(contact: Contact, trigrams: readonly string[]): Record<string, unknown>[] {
  const a = contact.account_id;
  return [
    contactPut(contact, newRev()),
    ...(contact.email ? [{ ...keys.contactEmail(a, contact.email), entity: "contact_email", contactId: contact.id }] : []),
    ...(contact.identifier ? [{ ...keys.contactIdentifier(a, contact.identifier), entity: "contact_identifier", contactId: contact.id }] : []),
    ...trigrams.map((tri) => posting(a, tri, contact.id)),
  ];
}

/** Runs the transaction, mapping a failed uniqueness marker to its 422. */
async function writeWithMarkers(items: TransactItem[], markers: Marker[], events: readonly DomainEvent[]): Promise<void> {
  try {
    await transact(items, events);
  } catch (err) {
    if (cancelledOnCondition(err)) {
      const failed = failedConditionIndexes(err);
      const marker = markers.find((m) => failed.includes(m.index));
      // A lost race on the contact itself (item 0) is retried on fresh state, not a taken value.
      if (marker && !failed.includes(0)) throw taken(marker.field);
    }
    throw err;
  }
}

function markerPut(key: { pk: string; sk: string }, entity: string, contactId: number): TransactItem {
  return { Put: { TableName: mainTableName(), Item: { ...key, entity, contactId }, ConditionExpression: "attribute_not_exists(pk)" } };
}

const idFromPostingSk = (sk: string): number => Number(sk.slice(-10));

/**
 * A contact's revision is `<version>.<uuid>`; the version counts its updates, and every posting an
 * update writes carries it. Postings the update no longer needs are deleted after its transaction
 * (the transaction stays small, so concurrent updates queue on the contact for less), each only if
 * no later update wrote it again (version below this one): a delayed delete never removes a
 * posting a newer name needs. One left over (a crash in between) is stale, which search's check
 * of every candidate against the contact makes harmless.
 */
const versionOf = (rev: string | undefined): number => {
  const n = Number(rev?.split(".")[0]);
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
};

async function deleteUnneeded(keyList: readonly { pk: string; sk: string }[], version: number): Promise<void> {
  const condition = { ConditionExpression: "attribute_not_exists(ver) OR ver < :v", ExpressionAttributeValues: { ":v": version } };
  const one = async (Key: { pk: string; sk: string }): Promise<void> => {
    try {
      await db().send(new DeleteCommand({ TableName: mainTableName(), Key, ...condition }));
    } catch (err) {
      if (!isConditionalFailure(err)) throw err;
    }
  };
  // One call for the usual case (TransactWriteItems takes 100); when a condition fails (a later
  // update wrote a posting again) or another transaction holds one, each is deleted on its own.
  for (let i = 0; i < keyList.length; i += 100) {
    const chunk = keyList.slice(i, i + 100);
    if (chunk.length === 1) {
      await one(chunk[0]!);
      continue;
    }
    try {
      await db().send(new TransactWriteCommand({ TransactItems: chunk.map((Key) => ({ Delete: { TableName: mainTableName(), Key, ...condition } })) }));
    } catch (err) {
      if ((err as { name?: string }).name !== "TransactionCanceledException") throw err;
      await Promise.all(chunk.map(one));
    }
  }
}

/** The contact ids of one range of a trigram partition, read whole (sort keys only). */
async function rangeIds(accountId: number, prefix: string): Promise<number[]> {
  const { lo, hi } = prefixRange(prefix);
  const items = await queryAll({
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
    ExpressionAttributeValues: { ":pk": keys.contactTrigramPartition(accountId, [...prefix][0]!).pk, ":lo": lo, ":hi": hi },
    ProjectionExpression: "sk",
  });
  return [...new Set(items.map((i) => idFromPostingSk(String(i["sk"]))))];
}

async function postingIds(accountId: number, plan: SearchPlan): Promise<number[]> {
  // A prefix or a single trigram's posting list is one range: no rounds needed.
  if (plan.kind === "prefix") return rangeIds(accountId, plan.prefix);
  if (plan.trigrams.length === 1) return rangeIds(accountId, `${plan.trigrams[0]!}#`);
  // Rarest first without statistics: read every list a page at a time (ids ascending), stop at the
  // first one that ends; the others prune its ids as far as they have been read.
  const lists = plan.trigrams.map((tri) => ({
    pk: keys.contactTrigramPartition(accountId, [...tri][0]!).pk,
    prefix: `${tri}#`,
    ids: new Set<number>(),
    last: 0,
    start: undefined as Record<string, unknown> | undefined,
    done: false,
  }));
  for (let limit = POSTING_FIRST_PAGE; ; limit = Math.min(limit * 4, POSTING_MAX_PAGE)) {
    await Promise.all(
      lists.map(async (l) => {
        const out = await db().send(
          new QueryCommand({
            TableName: mainTableName(),
            KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
            ExpressionAttributeValues: { ":pk": l.pk, ":lo": prefixRange(l.prefix).lo, ":hi": prefixRange(l.prefix).hi },
            ProjectionExpression: "sk",
            Limit: limit,
            ExclusiveStartKey: l.start,
          }),
        );
        for (const i of out.Items ?? []) {
          const id = idFromPostingSk(String(i["sk"]));
          l.ids.add(id);
          l.last = Math.max(l.last, id);
        }
        l.start = out.LastEvaluatedKey;
        l.done = !l.start;
      }),
    );
    const candidates = candidatesOf(lists);
    if (candidates) return candidates;
  }
}

export const contactsRepo: ContactStore = {
  getAccount: accountsRepo.getAccount,
  nextContactId: (accountId) => nextAccountScopedId(accountId, "contact"),

  async insertContact(contact, trigrams, events) {
    const table = mainTableName();
    const a = contact.account_id;
    const items: TransactItem[] = [{ Put: { TableName: table, Item: contactPut(contact, newRev()), ConditionExpression: "attribute_not_exists(pk)" } }];
    const markers: Marker[] = [];
    if (contact.email) {
      markers.push({ field: "email", index: items.length });
      items.push(markerPut(keys.contactEmail(a, contact.email), "contact_email", contact.id));
    }
    if (contact.identifier) {
      markers.push({ field: "identifier", index: items.length });
      items.push(markerPut(keys.contactIdentifier(a, contact.identifier), "contact_identifier", contact.id));
    }
    items.push({
      Update: {
        TableName: table,
        Key: keys.accountCounter(a, "contacts_count"),
        UpdateExpression: "ADD #v :one",
        ExpressionAttributeNames: { "#v": "value" },
        ExpressionAttributeValues: { ":one": 1 },
      },
    });
    for (const tri of trigrams.slice(0, TX_LIMIT - items.length - events.length)) items.push({ Put: { TableName: table, Item: posting(a, tri, contact.id) } });
    await writeWithMarkers(items, markers, events);
  },

  async getContact(accountId, contactId) {
    const item = await getItem(keys.contact(accountId, contactId));
    return item ? toContact(item) : undefined;
  },

  async getContacts(accountId, contactIds) {
    const items = await batchGet(contactIds.map((id) => keys.contact(accountId, id)));
    return items.map(toContact);
  },

  async updateContact(prev, next, trigrams, events) {
    const table = mainTableName();
    const a = next.account_id;
    const rev = revOf(prev);
    const version = versionOf(rev) + 1;
    const items: TransactItem[] = [
      {
        // An update, not a put: last_activity_at is written by messages and must survive.
        Update: {
          TableName: table,
          Key: keys.contact(a, next.id),
          UpdateExpression: `SET ${UPDATABLE.map((f) => `#${f} = :${f}`).join(", ")}, #rev = :newRev`,
          ExpressionAttributeNames: { ...Object.fromEntries(UPDATABLE.map((f) => [`#${f}`, f])), "#rev": "rev" },
          ExpressionAttributeValues: {
            ...Object.fromEntries(UPDATABLE.map((f) => [`:${f}`, next[f]])),
            ":newRev": `${version}.${newRev()}`,
            ...(rev ? { ":rev": rev } : {}),
          },
          ConditionExpression: rev ? "#rev = :rev" : "attribute_exists(pk)",
        },
      },
    ];
    const markers: Marker[] = [];
    for (const [field, key] of [
      ["email", (v: string) => keys.contactEmail(a, v)],
      ["identifier", (v: string) => keys.contactIdentifier(a, v)],
    ] as const) {
      const before = prev[field];
      const after = next[field];
      if (before === after) continue;
      if (before) items.push({ Delete: { TableName: table, Key: key(before) } });
      if (after) {
        markers.push({ field, index: items.length });
        items.push(markerPut(key(after), `contact_${field}`, next.id));
      }
    }
    const before = new Set(trigrams.before);
    const after = new Set(trigrams.after);
    for (const tri of after) if (!before.has(tri)) items.push({ Put: { TableName: table, Item: posting(a, tri, next.id, version) } });
    await guardConcurrent(() => writeWithMarkers(items, markers, events));
    await deleteUnneeded([...before].filter((t) => !after.has(t)).map((tri) => keys.contactTrigram(a, tri, next.id)), version);
  },

  async listContacts(accountId, req) {
    const k = keys.contactPrefix(accountId);
    const from = req.afterId !== undefined ? req.afterId + 1 : 0;
    const { items, hasMore } = await readRange(
      {
        KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
        ExpressionAttributeValues: { ":pk": k.pk, ":lo": `${k.skPrefix}${pad(from)}`, ":hi": `${k.skPrefix}${pad(CONTACT_ID_MAX)}` },
      },
      req.afterId !== undefined ? 0 : (req.page - 1) * req.per,
      req.per,
    );
    const contacts = items.map(toContact);
    return { items: contacts, hasMore, lastId: contacts.at(-1)?.id };
  },

  async countContacts(accountId) {
    const item = await getItem(keys.accountCounter(accountId, "contacts_count"), false);
    return Number(item?.["value"] ?? 0);
  },

  searchCandidates: postingIds,
};
