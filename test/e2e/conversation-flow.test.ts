/**
 * The conversation scenario over real HTTP in the sandbox: create contact -> conversation ->
 * incoming message -> resolve. Each step's webhook payload is asserted field by field on the
 * outbox items, then at a real receiver on 127.0.0.1 subscribed to every event: the delivered
 * bodies are exactly those payloads, signed so that the Standard Webhooks reference verifies them.
 * The scenario's API calls go through the recommended client (client/).
 */
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { EVENT_NAMES } from "../../shared/events/catalog.ts";
import { outboxOf } from "../support/outbox.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";
import { createClient, type ConversaClient } from "../../client/src/index.ts";

let sandbox: Sandbox;
let receiver: Receiver;
let secret: string;
/** The recommended client, as the agent (the scenario) and as an administrator (the webhook). */
let agent: ConversaClient;

beforeAll(async () => {
  sandbox = await startTestSandbox("flow");
  receiver = await startReceiver();
  const as = (apiKey: string) => createClient({ baseUrl: sandbox.info.apiBase.replace("localhost", "127.0.0.1"), apiKey, accountId: sandbox.info.accountId, retry: { attempts: 1 } });
  agent = as(sandbox.info.agentApiKey);
  const hook = await as(sandbox.info.adminApiKey).call("webhooks.create", { body: { url: receiver.url, subscriptions: [...EVENT_NAMES] } });
  secret = hook.payload.webhook.secret;
});

afterAll(async () => {
  await receiver?.close();
  await sandbox?.stop();
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${sandbox.info.apiBase.replace("localhost", "127.0.0.1")}/api/v1/accounts/${sandbox.info.accountId}${path}`, {
    method,
    headers: { "content-type": "application/json", api_access_token: sandbox.info.agentApiKey, ...headers },
    ...(body !== undefined ? { body: typeof body === "string" || Buffer.isBuffer(body) ? body : JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  return { status: res.status, json: text && res.headers.get("content-type")?.includes("json") ? JSON.parse(text) : undefined, text, headers: res.headers };
}

describe("contact -> conversation -> incoming message -> resolve, over HTTP", () => {
  it("runs the scenario and writes each step's event with the documented payload", async () => {
    const accountId = sandbox.info.accountId;
    const inbox = await agent.call("inboxes.create", { body: { name: "Flow inbox", channel: { type: "api" } } });

    // 1. contact
    const contact = await agent.call("contacts.create", { body: { name: "Flora Flow", email: "flora@flow.test", phone_number: "+14155550100" } });
    const contactId = contact.payload.contact.id;
    const [contactCreated] = await outboxOf(accountId, "contact_created");
    expect(contactCreated!.inboxId).toBeUndefined();
    const cp = contactCreated!.payload;
    expect(cp.event).toBe("contact_created");
    expect(cp.id).toBe(String(contactId));
    expect(cp.name).toBe("Flora Flow");
    expect(cp.email).toBe("flora@flow.test");
    expect(cp.phone_number).toBe("+14155550100");
    expect(cp.identifier).toBeNull();
    expect(cp.custom_attributes).toEqual({});
    expect(cp.additional_attributes).toEqual({});
    expect(cp.account).toEqual({ id: accountId, name: "Acme Demo" });

    // 2. conversation
    const conv = await agent.call("conversations.create", { body: { inbox_id: inbox.id, contact_id: contactId } });
    const convId = conv.id;
    const [convCreated] = await outboxOf(accountId, "conversation_created");
    expect(convCreated!.inboxId).toBe(inbox.id);
    const vp = convCreated!.payload;
    expect(vp.event).toBe("conversation_created");
    expect(vp.id).toBe(String(convId));
    expect(vp.status).toBe("open");
    expect(vp.inbox_id).toBe(inbox.id);
    expect(vp.contact).toMatchObject({ id: contactId, name: "Flora Flow", email: "flora@flow.test" });
    expect(vp.meta.sender).toMatchObject({ id: contactId, name: "Flora Flow", type: "contact" });
    expect(vp.meta.assignee).toBeNull();
    expect(vp.messages).toEqual([]);
    expect(typeof vp.created_at).toBe("number");

    // 3. incoming message
    const msg = await agent.call("messages.create", { path: { conversation_id: convId }, body: { content: "My order is late", message_type: "incoming" } });
    const [msgCreated] = await outboxOf(accountId, "message_created");
    expect(msgCreated!.inboxId).toBe(inbox.id);
    const mp = msgCreated!.payload;
    expect(mp.event).toBe("message_created");
    expect(mp.id).toBe(String(msg.id));
    expect(mp.content).toBe("My order is late");
    expect(mp.message_type).toBe("incoming");
    expect(mp.content_type).toBe("text");
    expect(mp.private).toBe(false);
    expect(mp.conversation).toMatchObject({ id: convId, status: "open", inbox_id: inbox.id });
    expect(mp.sender).toMatchObject({ id: contactId, name: "Flora Flow", type: "contact" });
    expect(mp.inbox).toEqual({ id: inbox.id, name: "Flow inbox" });
    expect(mp.account).toEqual({ id: accountId, name: "Acme Demo" });
    expect(typeof mp.conversation.id).toBe("number");
    expect(typeof mp.sender.id).toBe("number");

    // 4. resolve
    const resolved = await agent.call("conversations.toggle_status", { path: { conversation_id: convId }, body: { status: "resolved" } });
    expect(resolved).toEqual({ meta: {}, payload: { success: true, current_status: "resolved", conversation_id: convId, snoozed_until: null } });
    const [statusChanged] = await outboxOf(accountId, "conversation_status_changed");
    const sp = statusChanged!.payload;
    expect(statusChanged!.inboxId).toBe(inbox.id);
    expect(sp.event).toBe("conversation_status_changed");
    expect(sp.id).toBe(String(convId));
    expect(sp.status).toBe("resolved");
    expect(sp.changed_attributes).toEqual([{ status: { previous_value: "open", current_value: "resolved" } }]);
    // The last message in the reply shape: Chatwoot's integer type (0 incoming).
    expect(sp.messages[0]).toMatchObject({ content: "My order is late", message_type: 0 });
    const [updated] = await outboxOf(accountId, "conversation_updated");
    expect(updated!.payload).toMatchObject({ event: "conversation_updated", id: String(convId), status: "resolved", changed_attributes: [{ status: { previous_value: "open", current_value: "resolved" } }] });

    const order = (await outboxOf(accountId)).map((e) => e.event).filter((e) => e !== "inbox_created");
    // The last two come from one transaction (same occurredAt): their relative order is not defined.
    expect(order.slice(0, 3)).toEqual(["contact_created", "conversation_created", "message_created"]);
    expect(order.slice(3).sort()).toEqual(["conversation_status_changed", "conversation_updated"]);

    const meta = await agent.call("conversations.meta", { query: { status: "resolved" } });
    expect(meta).toEqual({ meta: { mine_count: 0, assigned_count: 0, unassigned_count: 1, all_count: 1 } });

    // The receiver got every step's event, byte for byte the outbox payload, signed.
    const outbox = (await outboxOf(accountId)).filter((e) => e.event !== "inbox_created" || e.payload.name === "Flow inbox");
    const received = await receiver.waitFor(outbox.length, 15_000);
    const byKey = (e: { event: string; id: string }) => `${e.event}#${e.id}`;
    expect(received.map((r) => byKey(r.json)).sort()).toEqual(outbox.map((e) => byKey(e.payload)).sort());
    const verifier = new Webhook(secret);
    for (const r of received) {
      const sent = outbox.find((e) => byKey(e.payload) === byKey(r.json))!;
      expect(r.json).toEqual(sent.payload);
      expect(r.headers["content-type"]).toBe("application/json");
      expect(() => verifier.verify(r.body, r.headers as Record<string, string>)).not.toThrow();
    }
    expect(new Set(received.map((r) => r.headers["webhook-id"])).size).toBe(received.length);
  });

  it("routes contacts/search and conversations/meta before the {id} routes, and uploads to fauxqs S3", async () => {
    const search = await call("GET", "/contacts/search?q=flora");
    expect(search.status).toBe(200);
    expect(search.json.payload.map((c: { name: string }) => c.name)).toEqual(["Flora Flow"]);
    const noQ = await call("GET", "/contacts/search");
    expect(noQ.status).toBe(422);

    const boundary = "flowboundary";
    const body = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="attachment"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello upload\r\n--${boundary}--\r\n`);
    const up = await call("POST", "/upload", body, { "content-type": `multipart/form-data; boundary=${boundary}` });
    expect(up.status).toBe(200);
    const file = await fetch(up.json.file_url, { signal: AbortSignal.timeout(5000) });
    expect(await file.text()).toBe("hello upload");

    const transcript = await call("GET", "/conversations/1/transcript?format=text");
    expect(transcript.headers.get("content-type")).toMatch(/^text\/plain/);
    expect(transcript.text).toContain("Flora Flow (incoming): My order is late");
  });
});
