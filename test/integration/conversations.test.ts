import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { outboxOf } from "../support/outbox.ts";
import { recordCalls } from "../support/dynamo-calls.ts";

let a: AccountFixture;
let b: AccountFixture;
let inboxA: number;
let inboxA2: number;
let contactA: number;

const P = (f: AccountFixture, extra: Record<string, number | string> = {}) => ({ account_id: f.accountId, ...extra });

beforeAll(async () => {
  a = await makeAccount("Conv A");
  b = await makeAccount("Conv B");
  inboxA = (await invoke("inboxes.create", { params: P(a), key: a.adminKey, body: { name: "Support", channel: { type: "api" } } })).json.id;
  inboxA2 = (await invoke("inboxes.create", { params: P(a), key: a.adminKey, body: { name: "Sales", channel: { type: "api" } } })).json.id;
  await invoke("inboxes.create", { params: P(b), key: b.adminKey, body: { name: "B inbox", channel: { type: "api" } } });
  contactA = (await invoke("contacts.create", { params: P(a), key: a.agentKey, body: { name: "Carla Client", email: "carla@client.test" } })).json.payload.contact.id;
});

const meta = async (f: AccountFixture, key: string, query: Record<string, string> = {}) =>
  (await invoke("conversations.meta", { params: P(f), key, query })).json.meta;

describe("conversations", () => {
  it("creates a conversation with a first message, firing conversation_created and message_created", async () => {
    const res = await invoke("conversations.create", {
      params: P(a),
      key: a.agentKey,
      body: { inbox_id: inboxA, contact_id: contactA, message: { content: "Hello Carla" } },
    });

    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: 1, account_id: a.accountId, inbox_id: inboxA, status: "open", meta: { sender: { id: contactA, name: "Carla Client" } } });
    expect(res.json.meta).not.toHaveProperty("assignee");
    expect(res.json.messages).toHaveLength(1);
    const [created] = await outboxOf(a.accountId, "conversation_created");
    expect(created!.inboxId).toBe(inboxA);
    expect(created!.payload).toMatchObject({ event: "conversation_created", id: "1", status: "open", inbox_id: inboxA, contact: { id: contactA, name: "Carla Client" }, meta: { sender: { id: contactA } } });
    // Chatwoot leaves `assignee` out of a reply's meta, but its event data says null.
    expect(created!.payload.meta.assignee).toBeNull();
    expect(created!.payload.messages[0]).toMatchObject({ content: "Hello Carla", message_type: 1 });
    const [msg] = await outboxOf(a.accountId, "message_created");
    expect(msg!.payload).toMatchObject({ event: "message_created", id: "1", content: "Hello Carla", message_type: "outgoing", conversation: { id: 1, status: "open", inbox_id: inboxA }, sender: { id: a.agentUserId, name: "Agent", type: "user" }, inbox: { id: inboxA, name: "Support" }, account: { id: a.accountId, name: "Conv A" } });
  });

  it("rejects unknown inbox or contact with 422 and a bad body with 422", async () => {
    const noInbox = await invoke("conversations.create", { params: P(a), key: a.agentKey, body: { inbox_id: 99, contact_id: contactA } });
    const noContact = await invoke("conversations.create", { params: P(a), key: a.agentKey, body: { inbox_id: inboxA, contact_id: 99 } });
    const bad = await invoke("conversations.create", { params: P(a), key: a.agentKey, body: { inbox_id: "x", status: "closed" } });
    expect(noInbox.status).toBe(422);
    expect(noInbox.json.attributes).toEqual(["inbox_id"]);
    expect(noContact.json.attributes).toEqual(["contact_id"]);
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(expect.arrayContaining(["inbox_id", "contact_id", "status"]));
  });

  it("shows, and 404s across accounts", async () => {
    const ok = await invoke("conversations.show", { params: P(a, { conversation_id: 1 }), key: a.agentKey });
    const other = await invoke("conversations.show", { params: P(b, { conversation_id: 1 }), key: b.agentKey });
    expect(ok.json).toMatchObject({ id: 1, status: "open" });
    expect(other.status).toBe(404);
  });

  it("keeps meta counts by status, inbox and assignee without scanning, and lists with the same counts", async () => {
    await invoke("conversations.create", { params: P(a), key: a.agentKey, body: { inbox_id: inboxA2, contact_id: contactA, assignee_id: a.agentUserId } });
    await invoke("conversations.create", { params: P(a), key: a.agentKey, body: { inbox_id: inboxA2, contact_id: contactA, status: "pending" } });

    expect(await meta(a, a.agentKey)).toEqual({ mine_count: 1, assigned_count: 1, unassigned_count: 1, all_count: 2 });
    expect(await meta(a, a.adminKey)).toMatchObject({ mine_count: 0 });
    expect(await meta(a, a.agentKey, { status: "all" })).toMatchObject({ all_count: 3 });
    expect(await meta(a, a.agentKey, { inbox_id: String(inboxA2) })).toEqual({ mine_count: 1, assigned_count: 1, unassigned_count: 0, all_count: 1 });
    expect(await meta(a, a.agentKey, { status: "pending", inbox_id: String(inboxA2) })).toMatchObject({ all_count: 1, unassigned_count: 1 });

    const list = await invoke("conversations.list", { params: P(a), key: a.agentKey });
    expect(list.json.data.meta).toMatchObject({ mine_count: 1, assigned_count: 1, unassigned_count: 1, all_count: 2, count: 2, current_page: 1 });
    expect(list.json.data.payload.map((c: { id: number }) => c.id)).toEqual([2, 1]);
    const mine = await invoke("conversations.list", { params: P(a), key: a.agentKey, query: { assignee_type: "me" } });
    expect(mine.json.data.payload.map((c: { id: number }) => c.id)).toEqual([2]);
    expect(mine.json.data.payload[0].meta.assignee).toMatchObject({ id: a.agentUserId, name: "Agent" });
    const unassigned = await invoke("conversations.list", { params: P(a), key: a.agentKey, query: { assignee_type: "unassigned", status: "all" } });
    expect(unassigned.json.data.payload.map((c: { id: number }) => c.id)).toEqual([3, 1]);
    const byInbox = await invoke("conversations.list", { params: P(a), key: a.agentKey, query: { status: "all", inbox_id: String(inboxA2), per: "1" } });
    expect(byInbox.json.data.payload.map((c: { id: number }) => c.id)).toEqual([3]);
    const byInbox2 = await invoke("conversations.list", { params: P(a), key: a.agentKey, query: { status: "all", inbox_id: String(inboxA2), per: "1", cursor: byInbox.json.data.meta.next_cursor } });
    expect(byInbox2.json.data.payload.map((c: { id: number }) => c.id)).toEqual([2]);
    const bad = await invoke("conversations.list", { params: P(a), key: a.agentKey, query: { status: "closed" } });
    expect(bad.status).toBe(422);
  });

  it("refuses a snoozed_until after the year 9999 (milliseconds sent for seconds) and changes nothing", async () => {
    const before = (await invoke("conversations.show", { params: P(a, { conversation_id: 2 }), key: a.agentKey })).json.status;
    const ms = await invoke("conversations.toggle_status", { params: P(a, { conversation_id: 2 }), key: a.agentKey, body: { status: "snoozed", snoozed_until: Date.now() + 3_600_000 } });

    expect(ms.status).toBe(422);
    expect(ms.json.attributes).toEqual(["snoozed_until"]);
    expect((await invoke("conversations.show", { params: P(a, { conversation_id: 2 }), key: a.agentKey })).json.status).toBe(before);
  });

  it("toggles status with conversation_status_changed + conversation_updated and moves the counters", async () => {
    const res = await invoke("conversations.toggle_status", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { status: "resolved" } });

    expect(res.json).toEqual({ meta: {}, payload: { success: true, current_status: "resolved", conversation_id: 1, snoozed_until: null } });
    const [changed] = await outboxOf(a.accountId, "conversation_status_changed");
    expect(changed!.payload).toMatchObject({ event: "conversation_status_changed", id: "1", status: "resolved", changed_attributes: [{ status: { previous_value: "open", current_value: "resolved" } }] });
    const updated = await outboxOf(a.accountId, "conversation_updated");
    expect(updated.at(-1)!.payload.changed_attributes).toEqual([{ status: { previous_value: "open", current_value: "resolved" } }]);
    expect(await meta(a, a.agentKey)).toMatchObject({ all_count: 1, unassigned_count: 0 });
    expect(await meta(a, a.agentKey, { status: "resolved" })).toMatchObject({ all_count: 1 });
    const toggled = await invoke("conversations.toggle_status", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: {} });
    expect(toggled.json.payload.current_status).toBe("open");
    const bad = await invoke("conversations.toggle_status", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { status: "closed" } });
    expect(bad.status).toBe(422);
    const missing = await invoke("conversations.toggle_status", { params: P(b, { conversation_id: 1 }), key: b.agentKey, body: { status: "resolved" } });
    expect(missing.status).toBe(404);
  });

  it("assigns and unassigns, firing conversation_updated, and rejects non-members", async () => {
    const res = await invoke("conversations.assignments", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { assignee_id: a.adminUserId } });

    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: a.adminUserId, name: "Admin" });
    expect(await meta(a, a.adminKey)).toMatchObject({ mine_count: 1, assigned_count: 2, all_count: 2 });
    const updated = await outboxOf(a.accountId, "conversation_updated");
    expect(updated.at(-1)!.payload).toMatchObject({ changed_attributes: [{ assignee_id: { previous_value: null, current_value: a.adminUserId } }], meta: { assignee: { id: a.adminUserId } } });
    const outsider = await invoke("conversations.assignments", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { assignee_id: b.agentUserId } });
    expect(outsider.status).toBe(422);
    await invoke("conversations.assignments", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { assignee_id: null } });
    expect(await meta(a, a.adminKey)).toMatchObject({ mine_count: 0, assigned_count: 1 });
  });

  it("updates priority and attributes with changed_attributes", async () => {
    const res = await invoke("conversations.update", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { priority: "high", custom_attributes: { plan: "pro" } } });
    const bad = await invoke("conversations.update", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { priority: "whenever" } });

    expect(res.json).toMatchObject({ priority: "high", custom_attributes: { plan: "pro" } });
    expect((await outboxOf(a.accountId, "conversation_updated")).at(-1)!.payload.changed_attributes).toEqual([
      { priority: { previous_value: null, current_value: "high" } },
      { custom_attributes: { previous_value: {}, current_value: { plan: "pro" } } },
    ]);
    expect(bad.status).toBe(422);
    // Chatwoot's swagger offers "none": no priority, as null.
    const none = await invoke("conversations.update", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { priority: "none" } });
    expect(none.json.priority).toBeNull();
    expect((await outboxOf(a.accountId, "conversation_updated")).at(-1)!.payload.changed_attributes).toEqual([{ priority: { previous_value: "high", current_value: null } }]);
  });

  it("writes typing events to the outbox only", async () => {
    const on = await invoke("conversations.toggle_typing_status", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { typing_status: "on" } });
    await invoke("conversations.toggle_typing_status", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { typing_status: "off", is_private: "true" } });
    const bad = await invoke("conversations.toggle_typing_status", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { typing_status: "maybe" } });

    expect(on.status).toBe(200);
    const [typingOn] = await outboxOf(a.accountId, "conversation_typing_on");
    expect(typingOn!.inboxId).toBe(inboxA);
    expect(typingOn!.payload).toMatchObject({ event: "conversation_typing_on", id: "1", user: { id: a.agentUserId, name: "Agent", type: "user" }, conversation: { id: 1 }, is_private: false });
    const [typingOff] = await outboxOf(a.accountId, "conversation_typing_off");
    expect(typingOff!.payload.is_private).toBe(true);
    expect(bad.status).toBe(422);
  });
});

describe("counters under concurrency", () => {
  it("keep meta equal to the conversations' real states when status changes race", async () => {
    const c = await makeAccount("Race");
    const inbox = (await invoke("inboxes.create", { params: P(c), key: c.adminKey, body: { name: "R", channel: { type: "api" } } })).json.id;
    const contact = (await invoke("contacts.create", { params: P(c), key: c.agentKey, body: { name: "R" } })).json.payload.contact.id;
    for (let i = 0; i < 3; i++) await invoke("conversations.create", { params: P(c), key: c.agentKey, body: { inbox_id: inbox, contact_id: contact } });

    const statuses = ["resolved", "pending", "snoozed", "open"] as const;
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        invoke("conversations.toggle_status", { params: P(c, { conversation_id: (i % 3) + 1 }), key: c.agentKey, body: { status: statuses[i % 4] } }),
      ),
    );

    expect(results.every((r) => r.status === 200 || r.status === 409)).toBe(true);
    const actual = await invoke("conversations.list", { params: P(c), key: c.agentKey, query: { status: "all" } });
    const byStatus = new Map<string, number>();
    for (const conv of actual.json.data.payload as { status: string }[]) byStatus.set(conv.status, (byStatus.get(conv.status) ?? 0) + 1);
    for (const s of statuses) expect((await meta(c, c.agentKey, { status: s })).all_count, s).toBe(byStatus.get(s) ?? 0);
    expect((await meta(c, c.agentKey, { status: "all", inbox_id: String(inbox) })).all_count).toBe(3);
  });
});

describe("messages", () => {
  it("creates incoming, outgoing and private messages with message_created payloads", async () => {
    const incoming = await invoke("messages.create", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { content: "I need help", message_type: "incoming" } });
    const note = await invoke("messages.create", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { content: "internal", private: true } });

    expect(incoming.status).toBe(200);
    expect(incoming.json).toMatchObject({ content: "I need help", message_type: 0, private: false, sender: { id: contactA, name: "Carla Client", type: "contact" } });
    expect(note.json).toMatchObject({ private: true, message_type: 1 });
    const created = await outboxOf(a.accountId, "message_created");
    const ev = created.find((e) => e.payload.id === String(incoming.json.id))!;
    expect(ev.inboxId).toBe(inboxA);
    expect(ev.payload).toMatchObject({ event: "message_created", content: "I need help", message_type: "incoming", conversation: { id: 1, status: "open" }, sender: { id: contactA, name: "Carla Client" } });
    const shown = await invoke("conversations.show", { params: P(a, { conversation_id: 1 }), key: a.agentKey });
    expect(shown.json.messages[0].content).toBe("internal");
  });

  it("takes Chatwoot's interactive content types with their content_attributes", async () => {
    const items = [{ title: "Plan", description: "Pro", actions: [{ type: "link", text: "See", uri: "https://example.com" }] }];
    const conv = (await invoke("conversations.create", { params: P(a), key: a.agentKey, body: { inbox_id: inboxA, contact_id: contactA } })).json.id;
    const cards = await invoke("messages.create", { params: P(a, { conversation_id: conv }), key: a.agentKey, body: { content: "Our plans", content_type: "cards", content_attributes: { items } } });
    expect(cards.json).toMatchObject({ content_type: "cards", content_attributes: { items } });
    const ev = (await outboxOf(a.accountId, "message_created")).find((e) => e.payload.id === String(cards.json.id))!;
    expect(ev.payload).toMatchObject({ content_type: "cards", content_attributes: { items } });
    for (const type of ["input_email", "input_select", "form", "article", "text"]) {
      const res = await invoke("messages.create", { params: P(a, { conversation_id: conv }), key: a.agentKey, body: { content: type, content_type: type } });
      expect([type, res.status, res.json.content_type]).toEqual([type, 200, type]);
    }
    const bad = await invoke("messages.create", { params: P(a, { conversation_id: conv }), key: a.agentKey, body: { content: "x", content_type: "hologram" } });
    expect(bad.json.attributes).toEqual(["content_type"]);
  });

  it("never puts a private note in a conversation event's messages; the reply still shows it", async () => {
    const c = await makeAccount("Conv notes");
    const inbox = (await invoke("inboxes.create", { params: P(c), key: c.adminKey, body: { name: "Help", channel: { type: "api" } } })).json.id;
    const contact = (await invoke("contacts.create", { params: P(c), key: c.agentKey, body: { name: "Nora" } })).json.payload.contact.id;
    const conv = (await invoke("conversations.create", { params: P(c), key: c.agentKey, body: { inbox_id: inbox, contact_id: contact, message: { content: "hi Nora" } } })).json.id as number;
    const resolve = (status: string) => invoke("conversations.toggle_status", { params: P(c, { conversation_id: conv }), key: c.agentKey, body: { status } });

    await resolve("resolved");
    await invoke("messages.create", { params: P(c, { conversation_id: conv }), key: c.agentKey, body: { content: "secret note", private: true } });
    await resolve("open");

    const [first, second] = (await outboxOf(c.accountId, "conversation_status_changed")).map((e) => e.payload);
    expect(first!.messages).toEqual([expect.objectContaining({ content: "hi Nora", message_type: 1, private: false })]);
    expect(second!.messages).toEqual([]);
    const shown = await invoke("conversations.show", { params: P(c, { conversation_id: conv }), key: c.agentKey });
    expect(shown.json.messages).toEqual([expect.objectContaining({ content: "secret note", private: true })]);
    // Chatwoot's reply fields: the last non-activity message (notes count) and the first reply's
    // time (here the opening message's: an agent started it); the events leave the former out.
    expect(shown.json.last_non_activity_message).toEqual(shown.json.messages[0]);
    expect(shown.json.first_reply_created_at).toBe(shown.json.created_at);
    expect(second).not.toHaveProperty("last_non_activity_message");
    const reply = await invoke("messages.create", { params: P(c, { conversation_id: conv }), key: c.agentKey, body: { content: "on it" } });
    const after = await invoke("conversations.show", { params: P(c, { conversation_id: conv }), key: c.agentKey });
    expect(after.json.first_reply_created_at).toBe(shown.json.created_at);
    expect(after.json.last_non_activity_message).toMatchObject({ id: reply.json.id, content: "on it", message_type: 1 });
  });

  it("reopens a resolved or snoozed conversation on an incoming message (Chatwoot), in the message's transaction", async () => {
    const c = await makeAccount("Conv reopen");
    const inbox = (await invoke("inboxes.create", { params: P(c), key: c.adminKey, body: { name: "Help", channel: { type: "api" } } })).json.id;
    const contact = (await invoke("contacts.create", { params: P(c), key: c.agentKey, body: { name: "Rita" } })).json.payload.contact.id;
    const conv = (await invoke("conversations.create", { params: P(c), key: c.agentKey, body: { inbox_id: inbox, contact_id: contact, assignee_id: c.agentUserId } })).json.id as number;
    const post = (body: Record<string, unknown>) => invoke("messages.create", { params: P(c, { conversation_id: conv }), key: c.agentKey, body });
    const status = async () => (await invoke("conversations.show", { params: P(c, { conversation_id: conv }), key: c.agentKey })).json.status;
    await invoke("conversations.toggle_status", { params: P(c, { conversation_id: conv }), key: c.agentKey, body: { status: "resolved" } });

    // Agents' replies and notes leave it resolved.
    expect((await post({ content: "closing note", private: true })).status).toBe(200);
    expect((await post({ content: "bye" })).status).toBe(200);
    expect(await status()).toBe("resolved");
    const before = (await outboxOf(c.accountId, "conversation_status_changed")).length;

    expect((await post({ content: "one more thing", message_type: "incoming" })).status).toBe(200);
    expect(await status()).toBe("open");
    const changed = (await outboxOf(c.accountId, "conversation_status_changed")).slice(before);
    expect(changed.map((e) => e.payload.changed_attributes)).toEqual([[{ status: { previous_value: "resolved", current_value: "open" } }]]);
    expect((await outboxOf(c.accountId, "conversation_updated")).at(-1)!.payload).toMatchObject({ status: "open", changed_attributes: [{ status: { previous_value: "resolved", current_value: "open" } }] });
    expect((await outboxOf(c.accountId, "message_created")).at(-1)!.payload).toMatchObject({ content: "one more thing", conversation: { id: conv, status: "open" } });
    // Counters and the status indexes moved with it.
    expect(await meta(c, c.agentKey)).toMatchObject({ mine_count: 1, all_count: 1 });
    expect(await meta(c, c.agentKey, { status: "resolved" })).toMatchObject({ all_count: 0 });
    const open = await invoke("conversations.list", { params: P(c), key: c.agentKey, query: { status: "open" } });
    expect(open.json.data.payload.map((x: { id: number }) => x.id)).toEqual([conv]);

    // Snoozed too; an open or pending one keeps its status and fires no status event.
    await invoke("conversations.toggle_status", { params: P(c, { conversation_id: conv }), key: c.agentKey, body: { status: "snoozed" } });
    await post({ content: "hello?", message_type: "incoming" });
    expect(await status()).toBe("open");
    await invoke("conversations.toggle_status", { params: P(c, { conversation_id: conv }), key: c.agentKey, body: { status: "pending" } });
    const count = (await outboxOf(c.accountId, "conversation_status_changed")).length;
    await post({ content: "still there", message_type: "incoming" });
    expect(await status()).toBe("pending");
    expect(await outboxOf(c.accountId, "conversation_status_changed")).toHaveLength(count);
  });

  it("rejects empty messages, unknown attachments and other accounts' conversations", async () => {
    const empty = await invoke("messages.create", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: {} });
    const attach = await invoke("messages.create", { params: P(a, { conversation_id: 1 }), key: a.agentKey, body: { content: "x", attachment_ids: [42] } });
    const other = await invoke("messages.create", { params: P(b, { conversation_id: 1 }), key: b.agentKey, body: { content: "x" } });
    expect(empty.status).toBe(422);
    expect(attach.status).toBe(422);
    expect(attach.json.attributes).toEqual(["attachment_ids"]);
    expect(other.status).toBe(404);
  });

  it("lists messages in order with meta and updates one with message_updated", async () => {
    const list = await invoke("messages.list", { params: P(a, { conversation_id: 1 }), key: a.agentKey, query: { per: "2" } });
    expect(list.json.meta).toMatchObject({ count: 3, per: 2, has_more: true });
    expect(list.json.payload.map((m: { content: string }) => m.content)).toEqual(["Hello Carla", "I need help"]);

    const id = list.json.payload[1].id;
    const res = await invoke("messages.update", { params: P(a, { conversation_id: 1, message_id: id }), key: a.agentKey, body: { content: "I need help, please" } });
    const missing = await invoke("messages.update", { params: P(a, { conversation_id: 1, message_id: 999 }), key: a.agentKey, body: { content: "x" } });
    expect(res.json).toMatchObject({ id, content: "I need help, please" });
    expect(missing.status).toBe(404);
    const [updated] = await outboxOf(a.accountId, "message_updated");
    expect(updated!.payload).toMatchObject({ event: "message_updated", id: String(id), content: "I need help, please", message_type: "incoming", conversation: { id: 1 }, sender: { name: "Carla Client" } });
  });

  it("refreshes the conversation's last message when that message is edited", async () => {
    const before = await invoke("conversations.show", { params: P(a, { conversation_id: 1 }), key: a.agentKey });
    const lastId = before.json.messages[0].id;

    const edited = await invoke("messages.update", { params: P(a, { conversation_id: 1, message_id: lastId }), key: a.agentKey, body: { content: "internal (edited)" } });

    expect(edited.status).toBe(200);
    const after = await invoke("conversations.show", { params: P(a, { conversation_id: 1 }), key: a.agentKey });
    expect(after.json.messages[0]).toMatchObject({ id: lastId, content: "internal (edited)" });
  });

  it("serves the transcript as JSON and text, without private notes", async () => {
    const json = await invoke("conversations.transcript", { params: P(a, { conversation_id: 1 }), key: a.agentKey });
    const text = await invoke("conversations.transcript", { params: P(a, { conversation_id: 1 }), key: a.agentKey, query: { format: "text" } });
    const other = await invoke("conversations.transcript", { params: P(b, { conversation_id: 1 }), key: b.agentKey });

    expect(json.json.payload.conversation_id).toBe(1);
    expect(json.json.payload.messages.map((m: { content: string }) => m.content)).toEqual(["Hello Carla", "I need help, please"]);
    expect(json.json.payload.messages[1]).toMatchObject({ message_type: "incoming", sender: { name: "Carla Client" } });
    expect(text.headers["content-type"]).toMatch(/^text\/plain/);
    expect(text.text).toMatch(/Agent \(outgoing\): Hello Carla/);
    expect(text.text).toMatch(/Carla Client \(incoming\): I need help, please/);
    expect(text.text).not.toMatch(/internal/);
    expect(other.status).toBe(404);
  });
});

describe("status=all with inbox_id", () => {
  it("merges the inbox's per-status index partitions: every status, newest first, paged, never another inbox's items", async () => {
    const c = await makeAccount("Conv merge");
    const inbox = (await invoke("inboxes.create", { params: P(c), key: c.adminKey, body: { name: "Mine", channel: { type: "api" } } })).json.id;
    const other = (await invoke("inboxes.create", { params: P(c), key: c.adminKey, body: { name: "Busy", channel: { type: "api" } } })).json.id;
    const contact = (await invoke("contacts.create", { params: P(c), key: c.agentKey, body: { name: "Mo" } })).json.payload.contact.id;
    const create = async (inboxId: number, status?: string) =>
      (await invoke("conversations.create", { params: P(c), key: c.agentKey, body: { inbox_id: inboxId, contact_id: contact, ...(status ? { status } : {}) } })).json.id as number;
    const mine: number[] = [];
    for (const status of ["open", "pending", undefined, "snoozed", "pending", undefined]) {
      mine.push(await create(inbox, status));
      await create(other);
      await create(other);
    }
    await invoke("conversations.toggle_status", { params: P(c, { conversation_id: mine[2]! }), key: c.agentKey, body: { status: "resolved" } });
    const newestFirst = [...mine].sort((x, y) => y - x);

    const list = (query: Record<string, string>) => invoke("conversations.list", { params: P(c), key: c.agentKey, query: { status: "all", inbox_id: String(inbox), ...query } });
    let page1!: Awaited<ReturnType<typeof list>>;
    const calls = await recordCalls(async () => {
      page1 = await list({ per: "4" });
    });
    expect(page1.json.data.payload.map((x: { id: number }) => x.id)).toEqual(newestFirst.slice(0, 4));
    expect(page1.json.data.meta.has_more).toBe(true);
    const queries = calls.filter((q) => q.command === "QueryCommand" && q.input["KeyConditionExpression"]?.includes("gsi"));
    expect(queries.map((q) => q.input["IndexName"])).toEqual(["gsi2", "gsi2", "gsi2", "gsi2"]);
    expect(calls.filter((q) => q.command === "QueryCommand" && !q.input["IndexName"])).toEqual([]);

    const page2 = await list({ per: "4", page: "2" });
    expect(page2.json.data.payload.map((x: { id: number }) => x.id)).toEqual(newestFirst.slice(4));
    expect(page2.json.data.meta.has_more).toBe(false);
    const next = await list({ per: "4", cursor: page1.json.data.meta.next_cursor });
    expect(next.json.data.payload.map((x: { id: number }) => x.id)).toEqual(newestFirst.slice(4));
    const unassigned = await list({ assignee_type: "unassigned" });
    expect(unassigned.json.data.payload.map((x: { id: number }) => x.id)).toEqual(newestFirst);
  });
});
