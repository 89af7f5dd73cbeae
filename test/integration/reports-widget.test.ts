import { beforeAll, describe, expect, it } from "vitest";
import { conversationsRepo } from "../../shared/db/conversations-repo.ts";
import { contactsRepo } from "../../shared/db/contacts-repo.ts";
import { inboxesRepo } from "../../shared/db/inboxes-repo.ts";
import { createContact } from "../../shared/domain/contacts.ts";
import { createConversation } from "../../shared/domain/conversations/conversations.ts";
import { createMessage } from "../../shared/domain/conversations/messages.ts";
import { toggleStatus } from "../../shared/domain/conversations/status.ts";
import { bucketStart } from "../../shared/domain/reports.ts";
import { createInbox } from "../../shared/domain/inboxes.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { outboxOf } from "../support/outbox.ts";

let a: AccountFixture;
let b: AccountFixture;
let inbox1: number;
let inbox2: number;

// Monday 2026-03-02 00:00 UTC and the days after it (an injected clock, no sleeping).
const MON = Date.UTC(2026, 2, 2) / 1000;
const at = (day: number, seconds = 0) => new Date((MON + day * 86_400 + seconds) * 1000);

beforeAll(async () => {
  a = await makeAccount("Reports A");
  b = await makeAccount("Reports B");
  inbox1 = (await createInbox(inboxesRepo, a.accountId, { name: "One", channel: { type: "api" } }, at(0))).id;
  inbox2 = (await createInbox(inboxesRepo, a.accountId, { name: "Two", channel: { type: "api" } }, at(0))).id;
  const contact = await createContact(contactsRepo, a.accountId, { name: "Rita" }, at(0));
  // Day 0: conversation in inbox 1, incoming at +0, first reply at +60 s, resolved at +600 s.
  const c1 = await createConversation(conversationsRepo, a.accountId, a.agentUserId, { inbox_id: inbox1, contact_id: contact.id }, at(0, 0));
  await createMessage(conversationsRepo, a.accountId, c1.id, a.agentUserId, { content: "hi", message_type: "incoming" }, at(0, 10));
  await createMessage(conversationsRepo, a.accountId, c1.id, a.agentUserId, { content: "hello" }, at(0, 60));
  await createMessage(conversationsRepo, a.accountId, c1.id, a.agentUserId, { content: "second" }, at(0, 70));
  await createMessage(conversationsRepo, a.accountId, c1.id, a.agentUserId, { content: "note", private: true }, at(0, 80));
  await toggleStatus(conversationsRepo, a.accountId, c1.id, { status: "resolved" }, at(0, 600));
  // Day 1: conversation in inbox 2, first reply after 180 s.
  const c2 = await createConversation(conversationsRepo, a.accountId, a.agentUserId, { inbox_id: inbox2, contact_id: contact.id }, at(1, 0));
  await createMessage(conversationsRepo, a.accountId, c2.id, a.agentUserId, { content: "?", message_type: "incoming" }, at(1, 5));
  await createMessage(conversationsRepo, a.accountId, c2.id, a.agentUserId, { content: "!" }, at(1, 180));
  // Day 8 (next week): one more conversation in inbox 1.
  await createConversation(conversationsRepo, a.accountId, a.agentUserId, { inbox_id: inbox1, contact_id: contact.id }, at(8, 0));
});

const report = (f: AccountFixture, query: Record<string, string>) => invoke("reports.show", { params: { account_id: f.accountId }, key: f.agentKey, query });
const range = { since: String(MON), until: String(MON + 9 * 86_400 - 1) };

describe("reports", () => {
  it("counts conversations per day for the account", async () => {
    const res = await report(a, { metric: "conversations_count", ...range });
    expect(res.status).toBe(200);
    expect(res.json).toHaveLength(9);
    expect(res.json.slice(0, 2)).toEqual([
      { value: 1, timestamp: MON },
      { value: 1, timestamp: MON + 86_400 },
    ]);
    expect(res.json[8]).toEqual({ value: 1, timestamp: MON + 8 * 86_400 });
    expect(res.json.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBe(3);
  });

  it("counts messages (private notes excluded) and resolutions, per inbox, by week", async () => {
    const incoming = await report(a, { metric: "incoming_messages_count", group_by: "week", ...range });
    const outgoing = await report(a, { metric: "outgoing_messages_count", type: "inbox", id: String(inbox1), group_by: "week", ...range });
    const resolutions = await report(a, { metric: "resolutions_count", group_by: "month", ...range });

    expect(incoming.json).toEqual([
      { value: 2, timestamp: MON },
      { value: 0, timestamp: MON + 7 * 86_400 },
    ]);
    expect(outgoing.json[0]).toEqual({ value: 2, timestamp: MON });
    expect(resolutions.json).toEqual([{ value: 1, timestamp: bucketStart(MON, "month") }]);
  });

  it("averages first response and resolution times with their counts", async () => {
    const first = await report(a, { metric: "avg_first_response_time", group_by: "week", ...range });
    const resolution = await report(a, { metric: "avg_resolution_time", ...range });
    const inbox2First = await report(a, { metric: "avg_first_response_time", type: "inbox", id: String(inbox2), group_by: "week", ...range });

    expect(first.json[0]).toEqual({ value: 120, timestamp: MON, count: 2 });
    expect(resolution.json[0]).toEqual({ value: 600, timestamp: MON, count: 1 });
    expect(inbox2First.json[0]).toEqual({ value: 180, timestamp: MON, count: 1 });
  });

  it("keeps accounts apart, defaults to the last 30 days and validates the query", async () => {
    const other = await report(b, { metric: "conversations_count", ...range });
    const missing = await report(a, { metric: "conversations_count" });
    const badMetric = await report(a, { metric: "nope", ...range });
    const reversed = await report(a, { metric: "conversations_count", since: String(MON + 10), until: String(MON) });
    const foreignInbox = await report(b, { metric: "conversations_count", type: "inbox", id: String(inbox1), ...range });

    expect(other.json.every((p: { value: number }) => p.value === 0)).toBe(true);
    expect(missing.status).toBe(200);
    expect(missing.json.length).toBeGreaterThanOrEqual(30);
    expect(missing.json.length).toBeLessThanOrEqual(32);
    expect(badMetric.status).toBe(422);
    expect(reversed.status).toBe(422);
    expect(foreignInbox.status).toBe(422);
  });
});

describe("widget events", () => {
  let token: string;
  beforeAll(async () => {
    const inbox = await createInbox(inboxesRepo, a.accountId, { name: "Site", channel: { type: "web_widget", website_url: "https://rita.test" } }, at(0));
    token = inbox.website_token!;
    await createContact(contactsRepo, a.accountId, { name: "Visitor Vera", identifier: "vera-1" }, at(0));
  });

  it("fires webwidget_triggered for a website_token, without an API key", async () => {
    const res = await invoke("widget.events", { query: { website_token: token }, body: { name: "webwidget.triggered", event_info: { initiated_at: { timestamp: "now" }, referer: "https://rita.test/pricing" }, contact_identifier: "vera-1" } });

    expect(res.status).toBe(200);
    const [ev] = await outboxOf(a.accountId, "webwidget_triggered");
    expect(ev!.inboxId).toBe(3);
    expect(ev!.payload).toMatchObject({
      event: "webwidget_triggered",
      contact: { name: "Visitor Vera", identifier: "vera-1" },
      inbox: { id: 3, name: "Site" },
      account: { id: a.accountId, name: "Reports A" },
      event_info: { referer: "https://rita.test/pricing" },
      source_id: "vera-1",
    });
    expect(ev!.payload.id).toBe(String(ev!.payload.contact.id));
  });

  it("sends an empty contact for an anonymous visitor", async () => {
    await invoke("widget.events", { query: { website_token: token }, body: { name: "webwidget.triggered" } });
    const events = await outboxOf(a.accountId, "webwidget_triggered");
    expect(events.at(-1)!.payload).toMatchObject({ contact: {}, source_id: null, event_info: {} });
    expect(events.at(-1)!.payload.id).toMatch(/^visitor_/);
  });

  it("404s an unknown token and 422s a missing token or a wrong event name", async () => {
    const unknown = await invoke("widget.events", { query: { website_token: "nope" }, body: { name: "webwidget.triggered" } });
    const missing = await invoke("widget.events", { body: { name: "webwidget.triggered" } });
    const wrongName = await invoke("widget.events", { query: { website_token: token }, body: { name: "other" } });
    expect(unknown.status).toBe(404);
    expect(missing.status).toBe(422);
    expect(wrongName.status).toBe(422);
  });
});
