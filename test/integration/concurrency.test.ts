/**
 * Twenty concurrent updates of one resource all succeed (last writer wins per field) and the
 * derived data stays exact: status indexes, meta counts, report counters, search postings, and
 * one outbox event per update that changed something.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { invoke, type Response } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { outboxOf } from "../support/outbox.ts";

const N = 20;
/**
 * Twenty updates of one item queue on it: on a machine this loaded, DynamoDB Local takes seconds
 * per write, so the invocations get a larger budget than the Lambda's (what is checked here is
 * that they all succeed and the derived data is exact, not their latency).
 */
const budgetSeconds = 120;
let a: AccountFixture;
let inboxId: number;
let contactId: number;
let conversationId: number;

const P = (extra: Record<string, number | string> = {}) => ({ account_id: a.accountId, ...extra });
const statuses = (rs: readonly Response[]) => rs.map((r) => r.status);
const all200 = Array.from({ length: N }, () => 200);

beforeEach(async () => {
  a = await makeAccount("Concurrency Co");
  inboxId = (await invoke("inboxes.create", { params: P(), key: a.adminKey, body: { name: "Support", channel: { type: "api" } } })).json.id;
  contactId = (await invoke("contacts.create", { params: P(), key: a.agentKey, body: { name: "Start Name" } })).json.payload.contact.id;
  conversationId = (await invoke("conversations.create", { params: P(), key: a.agentKey, body: { inbox_id: inboxId, contact_id: contactId, message: { content: "hello" } } })).json.id;
});

/** Twenty distinct names made of distinct letters, so each one's search finds only itself. */
const names = Array.from({ length: N }, (_, i) => `Zed${String.fromCharCode(97 + i)}${String.fromCharCode(97 + i)}q${String.fromCharCode(97 + i)}x`);

describe("twenty concurrent updates of one resource", { timeout: 180_000 }, () => {
  it.each(["contacts.update", "contacts.replace"] as const)("%s: all 200, search finds only the final name, one event each", async (routeId) => {
    const rs = await Promise.all(names.map((name) => invoke(routeId, { params: P({ contact_id: contactId }), key: a.agentKey, body: { name }, budgetSeconds })));

    expect(statuses(rs)).toEqual(all200);
    const final = (await invoke("contacts.show", { params: P({ contact_id: contactId }), key: a.agentKey })).json.payload.name;
    expect(names).toContain(final);
    const found = await Promise.all(
      names.map(async (name) => (await invoke("contacts.search", { params: P(), key: a.agentKey, query: { q: name } })).json.payload.map((c: { id: number }) => c.id)),
    );
    expect(found).toEqual(names.map((name) => (name === final ? [contactId] : [])));
    const events = await outboxOf(a.accountId, "contact_updated");
    expect(events).toHaveLength(N);
    // Each event's previous name is the one the event before it wrote: no update was lost.
    const chain = events.map((e) => e.payload.changed_attributes.find((c: Record<string, unknown>) => "name" in c).name);
    const previous = new Set(chain.map((c: { previous_value: string }) => c.previous_value));
    const current = new Set(chain.map((c: { current_value: string }) => c.current_value));
    expect(current).toEqual(new Set(names));
    expect(previous).toEqual(new Set(["Start Name", ...names.filter((n) => n !== final)]));
  });

  it("contacts.update of custom_attributes, one key each: all 200, every key kept (the maps merge)", async () => {
    const rs = await Promise.all(
      names.map((name, i) => invoke("contacts.update", { params: P({ contact_id: contactId }), key: a.agentKey, body: { custom_attributes: { [`k${i}`]: name } }, budgetSeconds })),
    );

    expect(statuses(rs)).toEqual(all200);
    const stored = (await invoke("contacts.show", { params: P({ contact_id: contactId }), key: a.agentKey })).json.payload.custom_attributes;
    expect(stored).toEqual(Object.fromEntries(names.map((name, i) => [`k${i}`, name])));
    expect(await outboxOf(a.accountId, "contact_updated")).toHaveLength(N);
  });

  it("inboxes.update: all 200, one inbox_updated event each", async () => {
    const rs = await Promise.all(names.map((name) => invoke("inboxes.update", { params: P({ inbox_id: inboxId }), key: a.adminKey, body: { name }, budgetSeconds })));

    expect(statuses(rs)).toEqual(all200);
    const final = (await invoke("inboxes.show", { params: P({ inbox_id: inboxId }), key: a.agentKey })).json.name;
    expect(names).toContain(final);
    expect(await outboxOf(a.accountId, "inbox_updated")).toHaveLength(N);
  });

  it("messages.update: all 200, the conversation's last message follows, one event each", async () => {
    const messageId = (await invoke("messages.list", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json.payload[0].id;

    const rs = await Promise.all(
      names.map((content) => invoke("messages.update", { params: P({ conversation_id: conversationId, message_id: messageId }), key: a.agentKey, body: { content }, budgetSeconds })),
    );

    expect(statuses(rs)).toEqual(all200);
    const messages = (await invoke("messages.list", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json.payload;
    expect(names).toContain(messages[0].content);
    const conv = (await invoke("conversations.show", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json;
    expect(conv.last_non_activity_message?.content ?? conv.messages?.at(-1)?.content).toBe(messages[0].content);
    expect(await outboxOf(a.accountId, "message_updated")).toHaveLength(N);
  });

  it("conversations.update: all 200, one conversation_updated event each", async () => {
    const rs = await Promise.all(
      names.map((name, i) => invoke("conversations.update", { params: P({ conversation_id: conversationId }), key: a.agentKey, body: { custom_attributes: { n: i, name } }, budgetSeconds })),
    );

    expect(statuses(rs)).toEqual(all200);
    const conv = (await invoke("conversations.show", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json;
    expect(names).toContain(conv.custom_attributes.name);
    expect(await outboxOf(a.accountId, "conversation_updated")).toHaveLength(N);
  });

  it("conversations.toggle_status among open, resolved and pending: all 200, the index, the meta counts and the reports agree", async () => {
    const cycle = ["open", "resolved", "pending"] as const;

    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) => invoke("conversations.toggle_status", { params: P({ conversation_id: conversationId }), key: a.agentKey, body: { status: cycle[i % 3] }, budgetSeconds })),
    );

    expect(statuses(rs)).toEqual(all200);
    const final = (await invoke("conversations.show", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json.status;
    for (const s of cycle) {
      const listed = (await invoke("conversations.list", { params: P(), key: a.agentKey, query: { status: s } })).json.data;
      const meta = (await invoke("conversations.meta", { params: P(), key: a.agentKey, query: { status: s } })).json.meta;
      expect([s, listed.payload.map((c: { id: number }) => c.id), meta.all_count]).toEqual([s, s === final ? [conversationId] : [], s === final ? 1 : 0]);
    }
    const changes = (await outboxOf(a.accountId, "conversation_status_changed")).map((e) => e.payload.changed_attributes[0].status);
    // The transitions chain from "open" to the final status, each one recorded once.
    const sorted: { previous_value: string; current_value: string }[] = [];
    let at = "open";
    const pool = [...changes];
    while (pool.length) {
      const i = pool.findIndex((c) => c.previous_value === at);
      expect(i).toBeGreaterThanOrEqual(0);
      sorted.push(...pool.splice(i, 1));
      at = sorted.at(-1)!.current_value;
    }
    expect(at).toBe(final);
    const day = 86_400;
    const since = Math.floor(Date.now() / 1000 / day) * day - day;
    const report = (await invoke("reports.show", { params: P(), key: a.agentKey, query: { metric: "resolutions_count", since: String(since), until: String(since + 3 * day) } })).json;
    const resolutions = report.reduce((n: number, p: { value: number }) => n + p.value, 0);
    expect(resolutions).toBe(changes.filter((c) => c.current_value === "resolved").length);
  });

  it("conversations.assignments: all 200, the meta counts match the final assignee", async () => {
    const who = [a.adminUserId, a.agentUserId, null];

    const rs = await Promise.all(
      Array.from({ length: N }, (_, i) => invoke("conversations.assignments", { params: P({ conversation_id: conversationId }), key: a.agentKey, body: { assignee_id: who[i % 3] }, budgetSeconds })),
    );

    expect(statuses(rs)).toEqual(all200);
    const conv = (await invoke("conversations.show", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json;
    const assignee: number | null = conv.meta.assignee?.id ?? null;
    const meta = (await invoke("conversations.meta", { params: P(), key: a.agentKey, query: { status: "open" } })).json.meta;
    expect(meta).toMatchObject({ all_count: 1, assigned_count: assignee ? 1 : 0, unassigned_count: assignee ? 0 : 1, mine_count: assignee === a.agentUserId ? 1 : 0 });
  });
});
