import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { runAdmin } from "../../tools/admin.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { outboxOf } from "../support/outbox.ts";
import { recordCalls } from "../support/dynamo-calls.ts";
import { BatchWriteCommand, GetCommand } from "@aws-sdk/lib-dynamodb";
import { db, mainTableName } from "../../shared/db/client.ts";
import { contactSeedItems } from "../../shared/db/contacts-repo.ts";
import { keys } from "../../shared/db/keys.ts";
import { contactPostings } from "../../shared/domain/search-index.ts";
import type { Contact } from "../../shared/domain/contacts.ts";

let a: AccountFixture;
let b: AccountFixture;

beforeAll(async () => {
  a = await makeAccount("Contacts A");
  b = await makeAccount("Contacts B");
});

const create = (f: AccountFixture, body: unknown) => invoke("contacts.create", { params: { account_id: f.accountId }, key: f.agentKey, body });
const search = (f: AccountFixture, query: Record<string, string>) => invoke("contacts.search", { params: { account_id: f.accountId }, key: f.agentKey, query });

/**
 * An account seeded directly with `n` contacts: "Bulk <i>" unless i is a multiple of 3 ("Solo <i>"),
 * ids 1..n, or the names `nameOf` gives. `legacy`: postings without their texts, as written before
 * postings carried them.
 */
async function seedBulkAccount(name: string, n: number, opts: { nameOf?: (i: number) => string; legacy?: boolean } = {}): Promise<AccountFixture> {
  const f = await makeAccount(name);
  const ts = Math.floor(Date.now() / 1000);
  const nameOf = opts.nameOf ?? ((i: number) => `${i % 3 === 0 ? "Solo" : "Bulk"} ${i}`);
  const items = Array.from({ length: n }, (_, k): Contact => {
    const i = k + 1;
    return { id: i, account_id: f.accountId, name: nameOf(i), email: null, phone_number: null, identifier: null, thumbnail: "", custom_attributes: {}, additional_attributes: {}, blocked: false, created_at: ts, updated_at: ts, last_activity_at: null };
  })
    .flatMap((c) => contactSeedItems(c, contactPostings(c)))
    .map((item) => {
      if (!opts.legacy || item["entity"] !== "contact_tri") return item;
      const { tx: _tx, ...rest } = item;
      return rest;
    });
  const batches = Array.from({ length: Math.ceil(items.length / 25) }, (_, b) => items.slice(b * 25, b * 25 + 25));
  // Four BatchWriteItem calls at a time; DynamoDB Local processes every item of a batch.
  for (let i = 0; i < batches.length; i += 4) {
    await Promise.all(batches.slice(i, i + 4).map((batch) => db().send(new BatchWriteCommand({ RequestItems: { [mainTableName()]: batch.map((Item) => ({ PutRequest: { Item } })) } }))));
  }
  return f;
}

/** A Query of a posting list on its way to DynamoDB Local: its range's start (`:lo`) and how to send it on. */
interface ListQuery {
  readonly lo: string;
  readonly input: Record<string, unknown>;
  send(input?: Record<string, unknown>): Promise<unknown>;
}

/** Runs `fn` with every posting-list Query handed to `around` (to hold, change or fail it). */
async function aroundListQueries<T>(around: (q: ListQuery) => Promise<unknown>, fn: () => Promise<T>): Promise<T> {
  const name = `around-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown> & { ExpressionAttributeValues?: Record<string, unknown> };
      const values = input.ExpressionAttributeValues ?? {};
      if ((context as { commandName?: string }).commandName !== "QueryCommand" || !String(values[":pk"] ?? "").includes("#TRI#")) return next(args);
      return (await around({ lo: String(values[":lo"] ?? ""), input, send: (changed = input) => next({ ...args, input: changed }) })) as Awaited<ReturnType<typeof next>>;
    },
    { step: "initialize", name },
  );
  try {
    return await fn();
  } finally {
    db().middlewareStack.remove(name);
  }
}

/** Holds every posting-list Query but those of `kept` for `ms`, counting those held and those served. */
function holdAllBut(kept: string, ms: number) {
  const counts = { held: 0, served: 0 };
  const around = async ({ lo, send }: ListQuery) => {
    if (lo.startsWith(`${kept}#`)) return send();
    counts.held++;
    await new Promise((r) => setTimeout(r, ms));
    try {
      return await send();
    } finally {
      counts.served++;
    }
  };
  return { counts, around };
}

describe("contacts", () => {
  it("creates a contact and writes contact_created with the documented payload", async () => {
    const res = await create(a, { name: "Maria Souza", email: "Maria@Example.com", phone_number: "+5511999990001", identifier: "crm-1", custom_attributes: { tier: "gold" } });

    expect(res.status).toBe(200);
    const c = res.json.payload.contact;
    expect(c).toMatchObject({ id: 1, name: "Maria Souza", email: "maria@example.com", phone_number: "+5511999990001", identifier: "crm-1", custom_attributes: { tier: "gold" } });
    const [event] = await outboxOf(a.accountId, "contact_created");
    expect(event!.inboxId).toBeUndefined();
    expect(event!.payload).toMatchObject({
      event: "contact_created",
      id: "1",
      name: "Maria Souza",
      email: "maria@example.com",
      phone_number: "+5511999990001",
      identifier: "crm-1",
      custom_attributes: { tier: "gold" },
      additional_attributes: {},
      account: { id: a.accountId, name: "Contacts A" },
    });
  });

  it("rejects a duplicate e-mail (any case) and identifier with 422 and writes nothing", async () => {
    const before = (await outboxOf(a.accountId)).length;
    const dupEmail = await create(a, { name: "Other", email: "MARIA@example.com" });
    const dupIdent = await create(a, { name: "Other", identifier: "crm-1" });
    const otherAccount = await create(b, { name: "Maria in B", email: "maria@example.com" });

    expect(dupEmail.status).toBe(422);
    expect(dupEmail.json).toEqual({ message: "Email has already been taken", attributes: ["email"], errors: [{ field: "email", code: "taken", message: "has already been taken" }] });
    expect(dupIdent.status).toBe(422);
    expect(dupIdent.json.attributes).toEqual(["identifier"]);
    expect(otherAccount.status).toBe(200);
    expect((await outboxOf(a.accountId)).length).toBe(before);
  });

  it("validates the body", async () => {
    const res = await create(a, { email: "not-an-email", phone_number: "12345" });
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(expect.arrayContaining(["name", "email", "phone_number"]));
    // A name of only invisible characters is blank, like one of spaces.
    for (const name of ["\u200b\u200b", "\u3164", "\u034f", "\ufe0f", "\u115f\u1160", "\uffa0"]) {
      const invisible = await create(a, { name });
      expect(invisible.json.errors, JSON.stringify(name)).toEqual([{ field: "name", code: "blank", message: "can't be blank" }]);
    }
    // An attribute map as its JSON text (a form field) is the map.
    const asText = await create(a, { name: "Texto", custom_attributes: '{"plan":"pro"}' });
    expect(asText.json.payload.contact.custom_attributes).toEqual({ plan: "pro" });
    const notAMap = await create(a, { name: "Texto", custom_attributes: "[1]" });
    expect(notAMap.json.attributes).toEqual(["custom_attributes"]);
  });

  it("merges the attribute maps an update sends into the stored ones, key by key, as Chatwoot does", async () => {
    const m = await makeAccount("Merge Co");
    const c = (await create(m, { name: "Merge Me", custom_attributes: { tier: "gold", seats: 3 }, additional_attributes: { city: "Recife" } })).json.payload.contact;
    const path = { account_id: m.accountId, contact_id: c.id };
    const eventsBefore = (await outboxOf(m.accountId, "contact_updated")).length;

    const patched = await invoke("contacts.update", { params: path, key: m.agentKey, body: { custom_attributes: { seats: 5, plan: "pro" } } });
    expect(patched.status).toBe(200);
    expect(patched.json.payload.custom_attributes).toEqual({ tier: "gold", seats: 5, plan: "pro" });
    expect(patched.json.payload.additional_attributes).toEqual({ city: "Recife" });
    const put = await invoke("contacts.replace", { params: path, key: m.agentKey, body: { additional_attributes: { country: "BR" } } });
    expect(put.json.payload.additional_attributes).toEqual({ city: "Recife", country: "BR" });

    // An empty map changes nothing (no event); a key set to null stays, with null.
    await invoke("contacts.update", { params: path, key: m.agentKey, body: { custom_attributes: {} } });
    await invoke("contacts.update", { params: path, key: m.agentKey, body: { custom_attributes: { plan: null } } });
    const shown = (await invoke("contacts.show", { params: path, key: m.agentKey })).json.payload;
    expect(shown.custom_attributes).toEqual({ tier: "gold", seats: 5, plan: null });
    const events = (await outboxOf(m.accountId, "contact_updated")).slice(eventsBefore);
    expect(events).toHaveLength(3);
    expect(events[0]!.payload.changed_attributes).toEqual([
      { custom_attributes: { previous_value: { tier: "gold", seats: 3 }, current_value: { tier: "gold", seats: 5, plan: "pro" } } },
    ]);
  });

  it("refuses an update whose merged map would pass 16 KB, naming the field, and stores nothing", async () => {
    const m = await makeAccount("Big Maps Co");
    const c = (await create(m, { name: "Big Maps", custom_attributes: { a: "x".repeat(9_000) } })).json.payload.contact;
    const path = { account_id: m.accountId, contact_id: c.id };

    const res = await invoke("contacts.update", { params: path, key: m.agentKey, body: { name: "Bigger Maps", custom_attributes: { b: "y".repeat(9_000) } } });

    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Custom attributes is too large (maximum is 16 KB)",
      attributes: ["custom_attributes"],
      errors: [{ field: "custom_attributes", code: "too_large", message: "is too large (maximum is 16 KB)" }],
    });
    const shown = (await invoke("contacts.show", { params: path, key: m.agentKey })).json.payload;
    expect(shown).toMatchObject({ name: "Big Maps", custom_attributes: { a: "x".repeat(9_000) } });
    // Replacing the big key keeps the map within the limit.
    const swapped = await invoke("contacts.update", { params: path, key: m.agentKey, body: { custom_attributes: { a: "z" } } });
    expect(swapped.json.payload.custom_attributes).toEqual({ a: "z" });
  });

  it("shows a contact and 404s for another account's or a missing id", async () => {
    const ok = await invoke("contacts.show", { params: { account_id: a.accountId, contact_id: 1 }, key: a.agentKey });
    const missing = await invoke("contacts.show", { params: { account_id: a.accountId, contact_id: 999 }, key: a.agentKey });
    const other = await invoke("contacts.show", { params: { account_id: b.accountId, contact_id: 2 }, key: b.agentKey });

    expect(ok.json.payload).toMatchObject({ id: 1, name: "Maria Souza" });
    expect(missing.status).toBe(404);
    expect(other.status).toBe(404);
  });

  it("updates with PATCH and PUT, emits contact_updated with changed_attributes only on change, and frees the old e-mail", async () => {
    const patched = await invoke("contacts.update", { params: { account_id: a.accountId, contact_id: 1 }, key: a.agentKey, body: { name: "Maria S.", email: "maria.s@example.com" } });
    const same = await invoke("contacts.replace", { params: { account_id: a.accountId, contact_id: 1 }, key: a.agentKey, body: { name: "Maria S." } });
    const reuse = await create(a, { name: "New Maria", email: "maria@example.com" });
    const taken = await invoke("contacts.update", { params: { account_id: a.accountId, contact_id: 1 }, key: a.agentKey, body: { email: "maria@example.com" } });

    expect(patched.status).toBe(200);
    expect(patched.json.payload).toMatchObject({ name: "Maria S.", email: "maria.s@example.com" });
    expect(same.status).toBe(200);
    expect(reuse.status).toBe(200);
    expect(taken.status).toBe(422);
    const updates = await outboxOf(a.accountId, "contact_updated");
    expect(updates).toHaveLength(1);
    expect(updates[0]!.payload).toMatchObject({
      event: "contact_updated",
      id: "1",
      name: "Maria S.",
      changed_attributes: [
        { name: { previous_value: "Maria Souza", current_value: "Maria S." } },
        { email: { previous_value: "maria@example.com", current_value: "maria.s@example.com" } },
      ],
    });
  });

  it("stores Chatwoot's blocked flag on create and update (a form boolean too) and shows it everywhere", async () => {
    const made = await create(a, { name: "Spammer", blocked: "true" });
    expect(made.json.payload.contact).toMatchObject({ blocked: true });
    const id = made.json.payload.contact.id;
    const unblocked = await invoke("contacts.update", { params: { account_id: a.accountId, contact_id: id }, key: a.agentKey, body: { blocked: false } });
    expect(unblocked.json.payload).toMatchObject({ blocked: false });
    const reblocked = await invoke("contacts.replace", { params: { account_id: a.accountId, contact_id: id }, key: a.agentKey, body: { blocked: true } });
    expect(reblocked.json.payload).toMatchObject({ blocked: true });
    const shown = await invoke("contacts.show", { params: { account_id: a.accountId, contact_id: id }, key: a.agentKey });
    expect(shown.json.payload.blocked).toBe(true);
    const found = await invoke("contacts.search", { params: { account_id: a.accountId }, key: a.agentKey, query: { q: "Spammer" } });
    expect(found.json.payload).toEqual([expect.objectContaining({ id, blocked: true })]);
    const bad = await invoke("contacts.update", { params: { account_id: a.accountId, contact_id: id }, key: a.agentKey, body: { blocked: "maybe" } });
    expect(bad.json.attributes).toEqual(["blocked"]);
    const changes = (await outboxOf(a.accountId, "contact_updated")).filter((e) => e.payload.id === String(id));
    expect(changes.map((e) => [e.payload.blocked, e.payload.changed_attributes])).toEqual([
      [false, [{ blocked: { previous_value: true, current_value: false } }]],
      [true, [{ blocked: { previous_value: false, current_value: true } }]],
    ]);
  });

  it("404s when updating another account's contact", async () => {
    const res = await invoke("contacts.update", { params: { account_id: b.accountId, contact_id: 99 }, key: b.agentKey, body: { name: "x" } });
    expect(res.status).toBe(404);
  });

  it("lists contacts with meta, pages and cursors", async () => {
    for (let i = 0; i < 5; i++) await create(b, { name: `Lister ${i}` });
    const first = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { per: "2" } });
    const next = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { per: "2", cursor: first.json.meta.next_cursor } });
    const page3 = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { per: "2", page: "3" } });
    const bad = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { per: "two" } });
    const badCursor = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { cursor: "zz" } });
    const clamped = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { per: "1000" } });
    const huge = await invoke("contacts.list", { params: { account_id: b.accountId }, key: b.agentKey, query: { per: "99999999999999999999", page: "-99999999999999999999" } });
    const hugeSearch = await invoke("contacts.search", { params: { account_id: b.accountId }, key: b.agentKey, query: { q: "Lister", page: "99999999999999999999" } });

    expect(first.json.meta).toMatchObject({ count: 6, current_page: 1, per: 2, has_more: true });
    expect(first.json.payload.map((c: { name: string }) => c.name)).toEqual(["Maria in B", "Lister 0"]);
    // Each item as a contact's own reply shows it (Chatwoot's list includes contact_inboxes).
    expect(first.json.payload.map((c: { contact_inboxes: unknown }) => c.contact_inboxes)).toEqual([[], []]);
    expect(hugeSearch.json.meta.count).toBeGreaterThan(0);
    const found = await invoke("contacts.search", { params: { account_id: b.accountId }, key: b.agentKey, query: { q: "Lister 1" } });
    expect(found.json.payload).toEqual([expect.objectContaining({ name: "Lister 1", contact_inboxes: [] })]);
    expect(next.json.payload.map((c: { name: string }) => c.name)).toEqual(["Lister 1", "Lister 2"]);
    expect(page3.json.payload.map((c: { name: string }) => c.name)).toEqual(["Lister 3", "Lister 4"]);
    expect(page3.json.meta).toMatchObject({ has_more: false, next_cursor: null });
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(["per"]);
    expect(badCursor.status).toBe(422);
    expect(clamped.json.meta.per).toBe(100);
    // An integer of any length is clamped, not refused.
    expect([huge.status, huge.json.meta.per, huge.json.meta.current_page]).toEqual([200, 100, 1]);
    expect([hugeSearch.status, hugeSearch.json.meta.current_page, hugeSearch.json.payload]).toEqual([200, 100_000, []]);
  });
});

describe("contact search", () => {
  beforeAll(async () => {
    await create(b, { name: "João Pereira", email: "joao@acme.io", phone_number: "+5521988887777" });
    await create(b, { name: "Joana Dark", email: "jd@other.org", identifier: "EXT-77" });
    await create(b, { name: "Zed", email: "zed@acme.io" });
  });

  it("finds case-insensitive substrings of name, e-mail, phone and identifier", async () => {
    const names = async (q: string) => (await search(b, { q, sort: "name" })).json.payload.map((c: { name: string }) => c.name);
    expect(await names("JOA")).toEqual(["Joana Dark", "João Pereira"].sort((x, y) => x.localeCompare(y)));
    expect(await names("acme.io")).toEqual(["João Pereira", "Zed"]);
    expect(await names("88887")).toEqual(["João Pereira"]);
    expect(await names("ext-7")).toEqual(["Joana Dark"]);
    expect(await names("ze")).toEqual(["Zed"]);
    expect(await names("z")).toEqual(["Zed"]);
    expect(await names("nomatch")).toEqual([]);
  });

  it("sorts, pages and reports meta", async () => {
    const res = await search(b, { q: "j", sort: "-name", per: "1" });
    const page2 = await search(b, { q: "j", sort: "-name", per: "1", page: "2" });
    expect(res.json.meta).toMatchObject({ count: 2, current_page: 1, has_more: true });
    expect(res.json.payload[0].name).toBe("João Pereira");
    expect(page2.json.payload[0].name).toBe("Joana Dark");
    const created = await search(b, { q: "acme", sort: "created_at" });
    expect(created.json.payload.map((c: { name: string }) => c.name)).toEqual(["João Pereira", "Zed"]);
    // Chatwoot's other sort values: by e-mail and phone number, either way; contacts without the field last.
    const by = async (sort: string) => (await search(b, { q: "j", sort })).json.payload.map((c: { name: string }) => c.name);
    expect(await by("email")).toEqual(["Joana Dark", "João Pereira"]);
    expect(await by("-email")).toEqual(["João Pereira", "Joana Dark"]);
    expect(await by("phone_number")).toEqual(["João Pereira", "Joana Dark"]);
    expect(await by("-phone_number")).toEqual(["João Pereira", "Joana Dark"]);
    expect((await search(b, { q: "j", sort: "bogus" })).json.attributes).toEqual(["sort"]);
  });

  it("follows updates: the old text is no longer found, the new one is", async () => {
    const zed = (await search(b, { q: "zed" })).json.payload[0];
    await invoke("contacts.update", { params: { account_id: b.accountId, contact_id: zed.id }, key: b.agentKey, body: { name: "Yolanda", email: "yo@acme.io" } });
    expect((await search(b, { q: "zed" })).json.payload).toEqual([]);
    expect((await search(b, { q: "yolan" })).json.payload.map((c: { id: number }) => c.id)).toEqual([zed.id]);
  });

  it("never returns another account's contacts", async () => {
    const res = await search(a, { q: "acme" });
    expect(res.json.payload).toEqual([]);
  });

  it("reads postings and the real candidates, never the account's contacts", async () => {
    // 200 contacts: "Bulk <i>" unless i is a multiple of 3 ("Solo <i>"). "bulk 13" reads a first
    // page of the lists of its 5 trigrams; " 13" (11 postings: 13 and 130-139, Bulk and Solo alike)
    // ends there. Its postings' texts rule out Solo 132, 135 and 138: only the 8 real matches are
    // fetched, to be sorted by name.
    const f = await seedBulkAccount("Search at scale", 200);
    let res: Awaited<ReturnType<typeof search>> | undefined;
    const calls = await recordCalls(async () => (res = await search(f, { q: "bulk 13", sort: "name" })));

    const expected = [13, 130, 131, 133, 134, 136, 137, 139].map((i) => `Bulk ${i}`).sort();
    expect(res!.json.payload.map((c: { name: string }) => c.name)).toEqual(expected);
    const fetched = calls.filter((c) => c.command === "BatchGetItemCommand").flatMap((c) => Object.values(c.input["RequestItems"] as Record<string, { Keys: { sk: string }[] }>).flatMap((r) => r.Keys));
    const contactSk = keys.contact(f.accountId, 1).sk.replace(/\d+$/, "");
    expect(fetched.filter((k) => k.sk.startsWith(contactSk))).toHaveLength(expected.length);
    const queried = calls.filter((c) => c.command === "QueryCommand").map((c) => String(c.input["ExpressionAttributeValues"][":pk"]));
    expect(queried.length).toBeGreaterThan(0);
    expect(queried.every((pk) => pk.includes("#TRI#"))).toBe(true);
  });

  it("answers from the first list that ends in its first page, without waiting for the other lists' pages", async () => {
    // "bulk 13": of its 5 trigrams' lists only " 13" (11 postings) ends within its first page, and
    // its postings' texts decide. The other 4 lists' Queries are held for 3 s on their way to
    // DynamoDB Local: the search answers before any of them is served, with the same matches.
    const f = await seedBulkAccount("Search first list", 200);
    const HOLD_MS = 3_000;
    const { counts, around } = holdAllBut(" 13", HOLD_MS);
    await aroundListQueries(around, async () => {
      const started = Date.now();
      const res = await search(f, { q: "bulk 13" });
      const servedWhenAnswered = counts.served;
      expect(res.status).toBe(200);
      expect(res.json.payload.map((c: { id: number }) => c.id)).toEqual([139, 137, 136, 134, 133, 131, 130, 13]);
      expect(res.json.meta.count).toBe(8);
      expect(counts.held).toBe(4);
      expect(servedWhenAnswered).toBe(0);
      expect(Date.now() - started).toBeLessThan(HOLD_MS);
      // The held pages are still served, after the reply; the same query then reads " 13" alone.
      await expect.poll(() => counts.served, { timeout: 4 * HOLD_MS, interval: 50 }).toBe(4);
    });
    const again = await recordCalls(() => search(f, { q: "bulk 13" }));
    const lists = again.filter((c) => c.command === "QueryCommand").map((c) => String(c.input["ExpressionAttributeValues"][":lo"]));
    expect(lists).toEqual([expect.stringMatching(/^ 13#/)]);
  });

  it("pages a short query from its postings: reads about a page of contacts, seeks page N and the cursor, exact count", async () => {
    // 130 contacts, "Bulk <i>" unless i is a multiple of 3: 87 hold "bul", ids 130, 128, 127, 125 ...
    const f = await seedBulkAccount("Search paging", 130);
    const bulk = Array.from({ length: 130 }, (_, k) => 130 - k).filter((i) => i % 3 !== 0);
    const contactSk = keys.contact(f.accountId, 1).sk.replace(/\d+$/, "");
    const contactKeysRead = (calls: Awaited<ReturnType<typeof recordCalls>>) =>
      calls
        .filter((c) => c.command === "BatchGetItemCommand")
        .flatMap((c) => Object.values(c.input["RequestItems"] as Record<string, { Keys: { sk: string }[] }>).flatMap((r) => r.Keys))
        .filter((k) => k.sk.startsWith(contactSk)).length;
    const idsOf = (r: Awaited<ReturnType<typeof search>>) => r.json.payload.map((c: { id: number }) => c.id);

    let first: Awaited<ReturnType<typeof search>> | undefined;
    const firstCalls = await recordCalls(async () => (first = await search(f, { q: "BUL" })));
    let third: Awaited<ReturnType<typeof search>> | undefined;
    const thirdCalls = await recordCalls(async () => (third = await search(f, { q: "bul", page: "3" })));
    const second = await search(f, { q: "bul", page: "2" });
    const byCursor = await search(f, { q: "bul", cursor: first!.json.meta.next_cursor });
    const last = await search(f, { q: "bul", page: "4" });
    const oldestFirst = await search(f, { q: "bu", sort: "created_at", per: "10" });

    expect(idsOf(first!)).toEqual(bulk.slice(0, 25));
    expect(first!.json.meta).toMatchObject({ count: 87, current_page: 1, per: 25, has_more: true });
    expect(contactKeysRead(firstCalls)).toBe(26);
    expect(idsOf(second)).toEqual(bulk.slice(25, 50));
    expect(idsOf(byCursor)).toEqual(bulk.slice(25, 50));
    expect(idsOf(third!)).toEqual(bulk.slice(50, 75));
    expect(contactKeysRead(thirdCalls)).toBe(26);
    expect(idsOf(last)).toEqual(bulk.slice(75));
    expect(last.json.meta).toMatchObject({ count: 87, current_page: 4, has_more: false, next_cursor: null });
    expect(idsOf(oldestFirst)).toEqual([...bulk].reverse().slice(0, 10));
    expect(oldestFirst.json.meta).toMatchObject({ count: 87, has_more: true });
  });

  it("drops a stale posting of a short query and fills the page from the next candidates", async () => {
    // Solo 9 holds no "bul" but is given a posting for it, as if its old name's posting were
    // still to be deleted: the page skips it, takes the next match, and the count leaves it out.
    const f = await seedBulkAccount("Search stale", 12);
    await db().send(new BatchWriteCommand({ RequestItems: { [mainTableName()]: [{ PutRequest: { Item: { ...keys.contactTrigram(f.accountId, "bul", 9), entity: "contact_tri", contactId: 9 } } }] } }));

    const res = await search(f, { q: "bul", per: "3" });

    expect(res.json.payload.map((c: { id: number }) => c.id)).toEqual([11, 10, 8]);
    expect(res.json.meta).toMatchObject({ count: 8, has_more: true });
  });

  // Each seeds 200 contacts (about 2,400 items; every match of "bulk 1" is below 200): seconds on DynamoDB Local, more on a loaded machine.
  describe("a query of 4 or more characters, decided by its postings' texts", { timeout: 90_000 }, () => {
    // 200 contacts "Bulk <i>" / "Solo <i>" (every third), and every 10th renamed "Bulk <i> lk 1x"
    // when it is not a match of "bulk 1": it holds every trigram of "bulk 1", not in a row.
    const nameOf = (i: number) => {
      const base = `${i % 3 === 0 ? "Solo" : "Bulk"} ${i}`;
      return i % 10 === 5 && !base.includes("Bulk 1") ? `Bulk ${i} lk 1x` : base;
    };
    const matches = Array.from({ length: 200 }, (_, k) => 200 - k).filter((i) => nameOf(i).toLowerCase().includes("bulk 1"));
    const contactSk = (f: AccountFixture) => keys.contact(f.accountId, 1).sk.replace(/\d+$/, "");
    const contactKeysRead = (f: AccountFixture, calls: Awaited<ReturnType<typeof recordCalls>>) =>
      calls
        .filter((c) => c.command === "BatchGetItemCommand")
        .flatMap((c) => Object.values(c.input["RequestItems"] as Record<string, { Keys: { sk: string }[] }>).flatMap((r) => r.Keys))
        .filter((k) => k.sk.startsWith(contactSk(f))).length;
    const idsOf = (r: Awaited<ReturnType<typeof search>>) => r.json.payload.map((c: { id: number }) => c.id);

    it("counts exactly and reads only the page's contacts, whatever the page", async () => {
      const f = await seedBulkAccount("Long query paging", 200, { nameOf });
      expect(matches.length).toBeGreaterThan(60);

      let first: Awaited<ReturnType<typeof search>> | undefined;
      const firstCalls = await recordCalls(async () => (first = await search(f, { q: "BULK 1" })));
      let third: Awaited<ReturnType<typeof search>> | undefined;
      const thirdCalls = await recordCalls(async () => (third = await search(f, { q: "bulk 1", page: "3" })));
      const byCursor = await search(f, { q: "bulk 1", cursor: first!.json.meta.next_cursor });
      const oldestFirst = await search(f, { q: "bulk 1", sort: "created_at", per: "10" });

      expect(idsOf(first!)).toEqual(matches.slice(0, 25));
      expect(first!.json.meta).toMatchObject({ count: matches.length, current_page: 1, has_more: true });
      expect(contactKeysRead(f, firstCalls)).toBe(26);
      expect(idsOf(third!)).toEqual(matches.slice(50, 75));
      expect(contactKeysRead(f, thirdCalls)).toBe(26);
      expect(idsOf(byCursor)).toEqual(matches.slice(25, 50));
      expect(idsOf(oldestFirst)).toEqual([...matches].reverse().slice(0, 10));
      // By name, every match is read to be sorted; the false candidates are not.
      let byName: Awaited<ReturnType<typeof search>> | undefined;
      const byNameCalls = await recordCalls(async () => (byName = await search(f, { q: "bulk 1", sort: "name", per: "100" })));
      expect(byName!.json.meta.count).toBe(matches.length);
      expect(contactKeysRead(f, byNameCalls)).toBe(matches.length);
    });

    it("gives the same answers from postings written without texts, checking their contacts", async () => {
      const f = await seedBulkAccount("Long query legacy", 200, { nameOf, legacy: true });

      const first = await search(f, { q: "bulk 1" });
      const third = await search(f, { q: "bulk 1", page: "3" });

      expect(idsOf(first)).toEqual(matches.slice(0, 25));
      expect(first.json.meta).toMatchObject({ count: matches.length, has_more: true });
      expect(idsOf(third)).toEqual(matches.slice(50, 75));
      // A list of postings without texts is never read alone, though read whole before: the other
      // lists prune the contacts to check.
      const repeated = await recordCalls(() => search(f, { q: "bulk 1" }));
      const lists = repeated.filter((c) => c.command === "QueryCommand" && String(c.input["ExpressionAttributeValues"][":pk"]).includes("#TRI#"));
      expect(new Set(lists.map((c) => c.input["ExpressionAttributeValues"][":lo"])).size).toBe(4);

      // The operator's re-index gives them their fields: then only the page's contacts are read.
      const dataDir = mkdtempSync(join(tmpdir(), "conversa-reindex-"));
      writeFileSync(join(dataDir, "sandbox.json"), JSON.stringify({ dynamoEndpoint: inject("dynamoEndpoint"), tableName: mainTableName() }));
      const printed: string[] = [];
      await runAdmin(["search:reindex", "--data-dir", dataDir], (line) => printed.push(line));
      const again: string[] = [];
      await runAdmin(["search:reindex", "--data-dir", dataDir], (line) => again.push(line));

      expect(printed.join("\n")).toMatch(/search posting\(s\) given their fields/);
      expect(Number(/; (\d+) search posting/.exec(printed.join(""))![1])).toBeGreaterThan(200 * 5);
      expect(again.join("")).toMatch(/; 0 search posting\(s\)/);
      const posting = await db().send(new GetCommand({ TableName: mainTableName(), Key: keys.contactTrigram(f.accountId, "bul", 1) }));
      expect(posting.Item?.["tx"]).toEqual(["bulk 1"]);
      let after: Awaited<ReturnType<typeof search>> | undefined;
      const calls = await recordCalls(async () => (after = await search(f, { q: "bulk 1", page: "3" })));
      expect(idsOf(after!)).toEqual(matches.slice(50, 75));
      expect(after!.json.meta.count).toBe(matches.length);
      expect(contactKeysRead(f, calls)).toBe(26);
    });

    it("reads only the lists earlier searches did not learn the size of, and finds a contact added since", async () => {
      const f = await seedBulkAccount("Known lists", 120, { nameOf });
      const expected = matches.filter((i) => i <= 120);
      const trigramQueries = (calls: Awaited<ReturnType<typeof recordCalls>>) =>
        calls.filter((c) => c.command === "QueryCommand" && String(c.input["ExpressionAttributeValues"][":pk"]).includes("#TRI#")).map((c) => String(c.input["ExpressionAttributeValues"][":lo"]));

      let first: Awaited<ReturnType<typeof search>> | undefined;
      const firstCalls = await recordCalls(async () => (first = await search(f, { q: "bulk 1" })));
      let again: Awaited<ReturnType<typeof search>> | undefined;
      const againCalls = await recordCalls(async () => (again = await search(f, { q: "bulk 1" })));

      // "bulk 1" is looked up by "bul", "ulk", "lk " and "k 1": a first page of each, then one list alone.
      expect(new Set(trigramQueries(firstCalls)).size).toBe(4);
      expect(trigramQueries(againCalls)).toEqual(["k 1#"]);
      expect(idsOf(first!)).toEqual(expected.slice(0, 25));
      expect(idsOf(again!)).toEqual(idsOf(first!));
      expect(again!.json.meta.count).toBe(expected.length);

      const expectedOf = (q: string) => Array.from({ length: 120 }, (_, k) => 120 - k).filter((i) => nameOf(i).toLowerCase().includes(q));
      // A query sharing the short list read whole reads it alone, though " 11" was never read.
      let longer: Awaited<ReturnType<typeof search>> | undefined;
      const longerCalls = await recordCalls(async () => (longer = await search(f, { q: "bulk 11" })));
      expect(trigramQueries(longerCalls)).toEqual(["k 1#"]);
      expect(expectedOf("bulk 11").length).toBeGreaterThan(3);
      expect(idsOf(longer!)).toEqual(expectedOf("bulk 11"));

      // A query whose learned lists were read in part only reads a first page of its new list ("k 2").
      let other: Awaited<ReturnType<typeof search>> | undefined;
      const otherCalls = await recordCalls(async () => (other = await search(f, { q: "bulk 2" })));
      expect(trigramQueries(otherCalls)).toEqual(["k 2#"]);
      expect(expectedOf("bulk 2").length).toBeGreaterThan(3);
      expect(idsOf(other!)).toEqual(expectedOf("bulk 2"));

      // A contact written since (as its create writes it): the list read alone is read whole again.
      const ts = Math.floor(Date.now() / 1000);
      const newcomer: Contact = { id: 121, account_id: f.accountId, name: "Bulk 1 newcomer", email: null, phone_number: null, identifier: null, thumbnail: "", custom_attributes: {}, additional_attributes: {}, blocked: false, created_at: ts, updated_at: ts, last_activity_at: null };
      const items = contactSeedItems(newcomer, contactPostings(newcomer));
      await db().send(new BatchWriteCommand({ RequestItems: { [mainTableName()]: items.map((Item) => ({ PutRequest: { Item } })) } }));
      const after = await search(f, { q: "bulk 1" });
      expect(idsOf(after)[0]).toBe(121);
      expect(after.json.meta.count).toBe(expected.length + 1);
    });

    it("reads to its end a list an earlier search read whole, when it is estimated shorter than the lists read now", async () => {
      // 400 contacts "Alpha Gamma <i>". "gamma 1" reads a first page of its 5 lists; "a 1" (ids 1,
      // 10-19, 100-199: 111 postings, more than a list read alone at once) is the sparsest and is
      // read whole. "alpha gamma 1" is then looked up by alp, pha, "a g", gam, mma and "a 1": a first
      // page of the 3 lists no search read (400 postings each, none ends), and then "a 1", not read
      // again in part but learned of, is estimated shorter than the sparsest of them: read whole.
      const f = await seedBulkAccount("Learned list finished", 400, { nameOf: (i) => `Alpha Gamma ${i}` });
      const ones = Array.from({ length: 400 }, (_, k) => 400 - k).filter((i) => String(i).startsWith("1"));
      const reads = (calls: Awaited<ReturnType<typeof recordCalls>>) =>
        calls
          .filter((c) => c.command === "QueryCommand" && String(c.input["ExpressionAttributeValues"][":pk"]).includes("#TRI#"))
          .map((c) => `${String(c.input["ExpressionAttributeValues"][":lo"]).replace(/#$/, "")}${c.input["Limit"] ? ` (${c.input["Limit"]})` : ""}`);

      let first: Awaited<ReturnType<typeof search>> | undefined;
      const firstCalls = await recordCalls(async () => (first = await search(f, { q: "gamma 1" })));
      expect(first!.json.meta.count).toBe(ones.length);
      expect(reads(firstCalls).sort()).toEqual(["a 1 (32)", "a 1", "amm (32)", "gam (32)", "ma  (32)", "mma (32)"].sort());

      let longer: Awaited<ReturnType<typeof search>> | undefined;
      const longerCalls = await recordCalls(async () => (longer = await search(f, { q: "alpha gamma 1", per: "100" })));
      expect(reads(longerCalls).sort()).toEqual(["a 1", "a g (32)", "alp (32)", "pha (32)"]);
      expect(longer!.json.meta.count).toBe(ones.length);
      expect(idsOf(longer!)).toEqual(ones.slice(0, 100));
    });

    it("reads a posting list over as many pages as DynamoDB returns it in", async () => {
      // DynamoDB answers a Query with at most 1 MB, whatever its Limit: here every trigram Query is
      // cut to 7 items on its way to DynamoDB Local. No first page then ends: the sparsest list is
      // read to its end, page by page, and the answers are those of whole pages.
      const f = await seedBulkAccount("Paged postings", 200, { nameOf });
      const PAGE = 7;
      let queries = 0;
      const cut = ({ input, send }: ListQuery) => {
        queries++;
        return send({ ...input, Limit: Math.min(Number(input["Limit"] ?? PAGE), PAGE) });
      };
      await aroundListQueries(cut, async () => {
        const long = await search(f, { q: "bulk 1", per: "100" });
        expect(long.json.meta.count).toBe(matches.length);
        expect(idsOf(long)).toEqual(matches);
        // 4 first pages, then the list read to its end: more than one page of it.
        expect(queries).toBeGreaterThan(4 + 2);

        const expectedOf = (q: string) => Array.from({ length: 200 }, (_, k) => 200 - k).filter((i) => nameOf(i).toLowerCase().includes(q));
        const short = await search(f, { q: "k 1", per: "100" });
        expect(short.json.meta.count).toBe(expectedOf("k 1").length);
        expect(idsOf(short)).toEqual(expectedOf("k 1"));
        const prefix = await search(f, { q: "so", per: "100" });
        expect(prefix.json.meta.count).toBe(expectedOf("so").length);
        expect(idsOf(prefix)).toEqual(expectedOf("so"));
      });
    });

    it("reads postings' keys for queries of up to 3 characters, and their texts only for longer ones", async () => {
      const f = await seedBulkAccount("Projections", 60, { nameOf });
      const queriesOf = async (q: string) =>
        (await recordCalls(() => search(f, { q })))
          .filter((c) => c.command === "QueryCommand" && String(c.input["ExpressionAttributeValues"][":pk"]).includes("#TRI#"))
          .map((c) => ({ projection: c.input["ProjectionExpression"], limit: c.input["Limit"] }));
      // A prefix and a trigram: one range each, read whole at once, postings' keys only.
      expect(await queriesOf("bu")).toEqual([{ projection: "sk", limit: undefined }]);
      expect(await queriesOf("k 1")).toEqual([{ projection: "sk", limit: undefined }]);
      // Longer: the texts decide.
      const long = await queriesOf("bulk 1");
      expect(long.length).toBeGreaterThan(1);
      expect(long.every((q) => q.projection === "sk, tx")).toBe(true);
    });

    it("fails when a list's first page fails before a list decides the search, not after", async () => {
      const f = await seedBulkAccount("Failing page", 200);
      // A Query of `tri`'s list fails, after a pause: a list that decides the search has arrived by then.
      const failing = (tri: string) => async ({ lo, send }: ListQuery) => {
        if (!lo.startsWith(`${tri}#`)) return send();
        await new Promise((r) => setTimeout(r, 300));
        throw Object.assign(new Error("injected failure"), { name: "InternalServerError", $fault: "server" });
      };
      // "bulk 13": " 13" ends within its first page and decides; "bul" fails after it arrived.
      await aroundListQueries(failing("bul"), async () => {
        const res = await search(f, { q: "bulk 13" });
        expect(res.status).toBe(200);
        expect(res.json.meta.count).toBe(8);
      });
      // "bulk": neither of its lists (bul, ulk: 134 postings each) ends within its first page, so the failed page fails the search.
      await aroundListQueries(failing("bul"), async () => {
        const started = Date.now();
        const res = await search(f, { q: "bulk" });
        // At once, not when the invocation's time runs out (a 500 too).
        expect(Date.now() - started).toBeLessThan(5_000);
        expect(res.status).toBe(500);
        expect(res.json).toEqual({ error: "Internal server error", request_id: expect.any(String) });
      });
    });

    it("never lets a list of postings without texts decide alone: it waits for the other lists' first pages", async () => {
      // As in the test of the first list that ends, but with postings written before they carried
      // texts: " 13" ends within its first page, yet its contacts are pruned by the other lists
      // and checked, so the search waits for their pages (held here for 1 s) before it answers.
      const f = await seedBulkAccount("Legacy first list", 200, { legacy: true });
      const { counts, around } = holdAllBut(" 13", 1_000);
      await aroundListQueries(around, async () => {
        const res = await search(f, { q: "bulk 13" });
        expect(counts.served).toBe(4);
        expect(res.json.payload.map((c: { id: number }) => c.id)).toEqual([139, 137, 136, 134, 133, 131, 130, 13]);
      });
    });

    it("decides a longer query of a single trigram by its postings' texts", async () => {
      // "aaaa" has one trigram, "aaa": its list holds both contacts, whose texts tell them apart.
      const f = await makeAccount("One trigram");
      const long = await create(f, { name: "Aaaa Zz" });
      await create(f, { name: "Aaa Yy" });
      const res = await search(f, { q: "AAAA" });
      expect(idsOf(res)).toEqual([long.json.payload.contact.id]);
      expect(res.json.meta.count).toBe(1);
    });

    it("reads a contact's id from its posting's key whatever its number of digits", async () => {
      const f = await makeAccount("Long ids");
      const ts = Math.floor(Date.now() / 1000);
      const ids = [7, 98_765, 1_234_567_890];
      for (const id of ids) {
        const c: Contact = { id, account_id: f.accountId, name: `Digits ${id}`, email: null, phone_number: null, identifier: null, thumbnail: "", custom_attributes: {}, additional_attributes: {}, blocked: false, created_at: ts, updated_at: ts, last_activity_at: null };
        const items = contactSeedItems(c, contactPostings(c));
        await db().send(new BatchWriteCommand({ RequestItems: { [mainTableName()]: items.map((Item) => ({ PutRequest: { Item } })) } }));
      }
      expect(idsOf(await search(f, { q: "digits", sort: "name" }))).toEqual([1_234_567_890, 7, 98_765]);
      expect(idsOf(await search(f, { q: "dig" }))).toEqual([1_234_567_890, 98_765, 7]);
      expect(idsOf(await search(f, { q: "di" }))).toEqual([1_234_567_890, 98_765, 7]);
    });

    it("rewrites the postings whose fields changed: an old name is not found through kept trigrams", async () => {
      const created = await create(b, { name: "Ana Lima", email: "al@texts.example" });
      const id = created.json.payload.contact.id;
      expect(idsOf(await search(b, { q: "ana lima" }))).toEqual([id]);

      await invoke("contacts.update", { params: { account_id: b.accountId, contact_id: id }, key: b.agentKey, body: { name: "Ana X Lima" } });

      // "ana", " li" and "ima" (the trigrams "ana lima" is looked up by) are kept, with new texts.
      const postingTexts = async (tri: string) => (await db().send(new GetCommand({ TableName: mainTableName(), Key: keys.contactTrigram(b.accountId, tri, id) }))).Item?.["tx"];
      expect(await postingTexts("ana")).toEqual(["ana x lima"]);
      expect(await postingTexts(" li")).toEqual(["ana x lima"]);
      expect(await postingTexts("al@")).toEqual(["al@texts.example"]);
      const old = await search(b, { q: "ana lima" });
      expect(idsOf(old)).toEqual([]);
      expect(old.json.meta.count).toBe(0);
      expect(idsOf(await search(b, { q: "ana x li" }))).toEqual([id]);
    });
  });

  it("answers 422 with the documented body when q is missing or blank", async () => {
    const missing = await search(b, {});
    const blank = await search(b, { q: "  " });
    expect(missing.status).toBe(422);
    expect(missing.json).toEqual({ error: "Specify search string with parameter q" });
    expect(blank.status).toBe(422);
  });
});
