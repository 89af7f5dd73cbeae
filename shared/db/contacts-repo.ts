/** Contacts, their uniqueness markers and their search postings (shared/domain/search-index.ts). */
import { DeleteCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { EDITABLE, type Contact, type ContactStore } from "../domain/contacts.ts";
import { ValidationError } from "../errors.ts";
import type { DomainEvent } from "../events/outbox.ts";
import { sameTexts, type TrigramPosting } from "../domain/search-index.ts";
import { accountsRepo } from "./accounts-repo.ts";
import { cancelledOnCondition, db, failedConditionIndexes, isConditionalFailure, mainTableName } from "./client.ts";
import { getItem, guardConcurrent, newRev, nextAccountScopedId, remember, revOf, strip, transact, type TransactItem } from "./items.ts";
import { keys, pad } from "./keys.ts";
import { batchGet, readRange } from "./query.ts";
import { searchCandidates } from "./contact-search.ts";

const TX_LIMIT = 100;
const UPDATABLE = [...EDITABLE, "updated_at"] as const;
const CONTACT_ID_MAX = 9_999_999_999;

/** A stored contact (items written before `blocked` existed read as not blocked). */
export const toContact = (item: Record<string, unknown>): Contact => remember({ ...strip<Contact>(item), blocked: item["blocked"] === true }, item["rev"]);

const contactPut = (c: Contact, rev: string) => ({ ...keys.contact(c.account_id, c.id), entity: "contact", rev, ...c });

/** A posting item: `tx` holds the contact's fields that hold the trigram (search checks a longer query against them). */
const posting = (accountId: number, p: TrigramPosting, contactId: number, ver?: number) => ({
  ...keys.contactTrigram(accountId, p.tri, contactId),
  entity: "contact_tri",
  contactId,
  tx: [...p.texts],
  ...(ver !== undefined ? { ver } : {}),
});

const taken = (field: "email" | "identifier") => ValidationError.field(field, "taken", "has already been taken");

type Marker = { field: "email" | "identifier"; index: number };

/**
 * Every item of a new contact (contact, uniqueness markers, search postings) without the counter
 * and the outbox: for bulk seeding (sandbox benchmarks). Requests go through insertContact.
 */
export function contactSeedItems(contact: Contact, postings: readonly TrigramPosting[]): Record<string, unknown>[] {
  const a = contact.account_id;
  return [
    contactPut(contact, newRev()),
    ...(contact.email ? [{ ...keys.contactEmail(a, contact.email), entity: "contact_email", contactId: contact.id }] : []),
    ...(contact.identifier ? [{ ...keys.contactIdentifier(a, contact.identifier), entity: "contact_identifier", contactId: contact.id }] : []),
    ...postings.map((p) => posting(a, p, contact.id)),
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

type Item = Record<string, unknown>;

/**
 * Gives the postings of contacts that were written before postings carried their fields (`tx`)
 * those fields. The postings are read first (BatchGetItem, 100 keys a call) and only an existing
 * posting without its fields is written, under a condition that it still exists without them (a
 * posting deleted or rewritten by a concurrent update is left alone): safe beside live traffic and
 * to run again, and a run over postings that already hold their fields only reads. Returns how
 * many postings were given their fields.
 */
export async function addPostingTexts(entries: readonly { contact: Contact; postings: readonly TrigramPosting[] }[]): Promise<number> {
  const wanted = new Map<string, { key: { pk: string; sk: string }; texts: readonly string[] }>();
  for (const { contact, postings } of entries) {
    for (const p of postings) {
      const key = keys.contactTrigram(contact.account_id, p.tri, contact.id);
      wanted.set(`${key.pk}\u0000${key.sk}`, { key, texts: p.texts });
    }
  }
  const stored = await batchGet([...wanted.values()].map((w) => w.key), true);
  const missing = stored.filter((item) => item["tx"] === undefined).map((item) => wanted.get(`${String(item["pk"])}\u0000${String(item["sk"])}`)!);
  let written = 0;
  // A few at a time: one conditional write each.
  for (let i = 0; i < missing.length; i += 16) {
    const done = await Promise.all(
      missing.slice(i, i + 16).map(async ({ key, texts }) => {
        try {
          await db().send(
            new UpdateCommand({
              TableName: mainTableName(),
              Key: key,
              UpdateExpression: "SET tx = :tx",
              ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(tx)",
              ExpressionAttributeValues: { ":tx": [...texts] },
            }),
          );
          return 1;
        } catch (err) {
          if (!isConditionalFailure(err)) throw err;
          return 0;
        }
      }),
    );
    written += done.reduce<number>((a, b) => a + b, 0);
  }
  return written;
}

/**
 * Every contact of the table, a Scan page at a time (for the operator's re-index command, never a
 * route): `onPage` gets each page's contacts before the next page is read.
 */
export async function scanContacts(onPage: (contacts: Contact[]) => Promise<void>): Promise<void> {
  let start: Item | undefined;
  do {
    const out = await db().send(
      new ScanCommand({
        TableName: mainTableName(),
        FilterExpression: "entity = :e",
        ExpressionAttributeValues: { ":e": "contact" },
        ExclusiveStartKey: start,
      }),
    );
    await onPage((out.Items ?? []).map(toContact));
    start = out.LastEvaluatedKey;
  } while (start);
}

export const contactsRepo: ContactStore = {
  getAccount: accountsRepo.getAccount,
  nextContactId: (accountId) => nextAccountScopedId(accountId, "contact"),

  async insertContact(contact, postings, events) {
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
    for (const p of postings.slice(0, TX_LIMIT - items.length - events.length)) items.push({ Put: { TableName: table, Item: posting(a, p, contact.id) } });
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

  async updateContact(prev, next, postings, events) {
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
    // A posting is written again when it is new or the fields holding its trigram changed.
    const before = new Map(postings.before.map((p) => [p.tri, p.texts]));
    const after = new Set(postings.after.map((p) => p.tri));
    for (const p of postings.after) {
      const old = before.get(p.tri);
      if (!old || !sameTexts(old, p.texts)) items.push({ Put: { TableName: table, Item: posting(a, p, next.id, version) } });
    }
    await guardConcurrent(() => writeWithMarkers(items, markers, events));
    await deleteUnneeded([...before.keys()].filter((t) => !after.has(t)).map((tri) => keys.contactTrigram(a, tri, next.id)), version);
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

  searchCandidates,
};
