/**
 * The requests a client generated from Chatwoot's swagger sends, per shared route, through the
 * sandbox over real HTTP: trailing slashes, `Authorization: Bearer` beside `api_access_token`,
 * ids as strings, Chatwoot's request forms (wrapped webhook, multipart messages with files).
 * Each answer is checked for its status and the fields such a client reads.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { startReceiver, type Receiver } from "../support/receiver.ts";

let sandbox: Sandbox;
let receiver: Receiver;
const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1500, 3)]);

beforeAll(async () => {
  sandbox = await startTestSandbox("e2e-cw");
  receiver = await startReceiver();
});

afterAll(async () => {
  await receiver?.close();
  await sandbox?.stop();
});

interface Answer {
  readonly status: number;
  readonly json: any;
}

/** One request as the generated client sends it: both auth headers, JSON or FormData. */
async function client(method: string, path: string, body?: unknown): Promise<Answer> {
  const { accountId, adminApiKey, apiBase } = sandbox.info;
  const url = `${apiBase.replace("localhost", "127.0.0.1")}${path.replace("{account_id}", String(accountId))}`;
  const headers: Record<string, string> = { api_access_token: adminApiKey, authorization: "Bearer not-a-conversa-token", accept: "application/json" };
  let payload: FormData | string | undefined;
  if (body instanceof FormData) payload = body;
  else if (body !== undefined) {
    headers["content-type"] = "application/json";
    payload = JSON.stringify(body);
  }
  const res = await fetch(url, { method, headers, ...(payload !== undefined ? { body: payload } : {}), signal: AbortSignal.timeout(15_000) });
  const text = await res.text();
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

const ACC = "/api/v1/accounts/{account_id}";
const ids: { inbox?: number; widget?: number; contact?: number; conversation?: number; message?: number; webhook?: number } = {};

describe("a swagger-generated Chatwoot client against the sandbox", () => {
  it("reads the account, with a trailing slash", async () => {
    const res = await client("GET", `${ACC}/`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: sandbox.info.accountId, name: expect.any(String) });
  });

  it("creates inboxes at /inboxes/ with Chatwoot's settings and reads them back at /inboxes/{id}/", async () => {
    // Act
    const api = await client("POST", `${ACC}/inboxes/`, { name: "API", channel: { type: "api", webhook_url: "https://example.com/hook" }, enable_auto_assignment: false });
    const widget = await client("POST", `${ACC}/inboxes/`, {
      name: "Site",
      channel: { type: "web_widget", website_url: "https://example.com", widget_color: "#009CE0", welcome_title: "Hi", welcome_tagline: "Ask us" },
      greeting_enabled: true,
      greeting_message: "Hello",
      timezone: "America/Sao_Paulo",
    });
    ids.inbox = api.json.id;
    ids.widget = widget.json.id;
    const shown = await client("GET", `${ACC}/inboxes/${ids.widget}/`);
    const updated = await client("PATCH", `${ACC}/inboxes/${ids.inbox}/`, { enable_auto_assignment: true, csat_survey_enabled: true, working_hours_enabled: true });
    const list = await client("GET", `${ACC}/inboxes/`);

    // Assert
    expect(api.status).toBe(200);
    expect(api.json).toMatchObject({ channel_type: "Channel::Api", enable_auto_assignment: false, webhook_url: "https://example.com/hook", avatar_url: "", web_widget_script: null });
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({
      channel_type: "Channel::WebWidget",
      widget_color: "#009CE0",
      welcome_title: "Hi",
      welcome_tagline: "Ask us",
      greeting_enabled: true,
      greeting_message: "Hello",
      timezone: "America/Sao_Paulo",
      avatar_url: "",
      web_widget_script: expect.stringContaining(shown.json.website_token),
    });
    // The sandbox's own address, where its widget SDK path is served from.
    expect(shown.json.web_widget_script).toContain(`var BASE_URL=${JSON.stringify(sandbox.info.apiBase)};`);
    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ enable_auto_assignment: true, csat_survey_enabled: true, working_hours_enabled: true });
    expect(list.status).toBe(200);
    expect(list.json.payload.map((i: { id: number }) => i.id)).toEqual(expect.arrayContaining([ids.inbox, ids.widget]));
  });

  it("creates, shows, updates, lists and searches contacts (contact_inboxes included)", async () => {
    const created = await client("POST", `${ACC}/contacts/`, { name: "Chat Woot", email: "cw@example.com", inbox_id: String(ids.inbox) });
    ids.contact = created.json.payload.contact.id;
    const shown = await client("GET", `${ACC}/contacts/${ids.contact}/`);
    const put = await client("PUT", `${ACC}/contacts/${ids.contact}/`, { name: "Chat Woot Jr" });
    const patched = await client("PATCH", `${ACC}/contacts/${ids.contact}`, { phone_number: "+5511999990000" });
    const list = await client("GET", `${ACC}/contacts/?page=1`);
    const search = await client("GET", `${ACC}/contacts/search/?q=woot`);

    expect(created.status).toBe(200);
    expect(created.json.payload.contact).toMatchObject({ name: "Chat Woot", contact_inboxes: [] });
    expect(shown.status).toBe(200);
    expect(shown.json.payload).toMatchObject({ id: ids.contact, contact_inboxes: [] });
    expect(put.json.payload.name).toBe("Chat Woot Jr");
    expect(patched.json.payload.phone_number).toBe("+5511999990000");
    expect(list.status).toBe(200);
    expect(search.status).toBe(200);
    expect(search.json.payload[0]).toMatchObject({ id: ids.contact });
  });

  it("creates a conversation with ids as strings and Chatwoot's extra fields; meta.assignee absent until assigned", async () => {
    const created = await client("POST", `${ACC}/conversations/`, {
      inbox_id: String(ids.inbox),
      contact_id: String(ids.contact),
      source_id: "src-1",
      team_id: null,
      additional_attributes: { browser: "Firefox" },
      message: { content: "Hello from a client" },
    });
    ids.conversation = created.json.id;
    const shown = await client("GET", `${ACC}/conversations/${ids.conversation}/`);
    const list = await client("GET", `${ACC}/conversations/?status=all&inbox_id=${ids.inbox}`);
    const meta = await client("GET", `${ACC}/conversations/meta/`);
    const patched = await client("PATCH", `${ACC}/conversations/${ids.conversation}/`, { priority: "high" });

    expect(created.status).toBe(200);
    expect(created.json.meta).not.toHaveProperty("assignee");
    expect(shown.status).toBe(200);
    expect(shown.json.meta.sender).toMatchObject({ id: ids.contact });
    expect(list.json.data.payload.map((c: { id: number }) => c.id)).toContain(ids.conversation);
    expect(meta.json.meta).toMatchObject({ all_count: expect.any(Number) });
    expect(patched.json.priority).toBe("high");
  });

  it("assigns with a string id (agent fields in the reply and in meta.assignee), toggles status (top-level meta) and typing", async () => {
    // Arrange: the administrator's user id, as a Chatwoot client gets it from sign-in
    const { apiBase, adminEmail, password } = sandbox.info;
    const signIn = await fetch(`${apiBase.replace("localhost", "127.0.0.1")}/auth/sign_in/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: adminEmail, password }),
      signal: AbortSignal.timeout(15_000),
    });
    const userId = ((await signIn.json()) as { data: { id: number } }).data.id;

    // Act
    const assigned = await client("POST", `${ACC}/conversations/${ids.conversation}/assignments/`, { assignee_id: String(userId) });
    const shown = await client("GET", `${ACC}/conversations/${ids.conversation}`);
    const status = await client("POST", `${ACC}/conversations/${ids.conversation}/toggle_status/`, { status: "pending" });
    const typing = await client("POST", `${ACC}/conversations/${ids.conversation}/toggle_typing_status/`, { typing_status: "on" });

    // Assert
    expect(signIn.status).toBe(200);
    expect(assigned.status).toBe(200);
    expect(assigned.json).toMatchObject({ id: userId, available_name: expect.any(String), account_id: sandbox.info.accountId, confirmed: true });
    expect(shown.json.meta.assignee).toMatchObject({ id: userId, available_name: expect.any(String), account_id: sandbox.info.accountId });
    expect(status.status).toBe(200);
    expect(status.json).toMatchObject({ meta: {}, payload: { success: true, current_status: "pending", conversation_id: ids.conversation } });
    expect(typing.status).toBe(200);
  });

  it("sends a message as multipart with files, and the webhook receiver gets its attachments", async () => {
    // Arrange
    const hook = await client("POST", `${ACC}/webhooks/`, { webhook: { url: receiver.url, subscriptions: ["message_created", "message_updated"] } });
    ids.webhook = hook.json.payload.webhook.id;
    const fd = new FormData();
    fd.append("content", "with a picture");
    fd.append("message_type", "outgoing");
    fd.append("private", "false");
    fd.append("attachments[]", new Blob([png], { type: "image/png" }), "pic.png");

    // Act
    const res = await client("POST", `${ACC}/conversations/${ids.conversation}/messages/`, fd);
    ids.message = res.json.id;
    const delivered = await receiver.waitFor(1, 20_000, (r) => r.json.event === "message_created" && r.json.id === String(ids.message));

    // Assert
    expect(hook.status).toBe(200);
    expect(res.status).toBe(200);
    // Chatwoot's swagger types message_type as an integer (1 outgoing); its webhook payload names it.
    expect(res.json.message_type).toBe(1);
    expect((delivered[0]!.json as unknown as { message_type: unknown }).message_type).toBe("outgoing");
    expect(res.json.attachments).toEqual([
      expect.objectContaining({ message_id: ids.message, account_id: sandbox.info.accountId, file_type: "image", extension: "png", file_size: png.length, data_url: expect.stringContaining("X-Amz-Signature=") }),
    ]);
    const file = await fetch(res.json.attachments[0].data_url, { signal: AbortSignal.timeout(5000) });
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await file.arrayBuffer()).length).toBe(png.length);
    expect((delivered[0]!.json as unknown as { attachments: unknown[] }).attachments).toEqual([expect.objectContaining({ file_type: "image", file_size: png.length })]);
  });

  it("updates a message as multipart, lists messages and reads the transcript", async () => {
    const fd = new FormData();
    fd.append("content", "edited");
    const updated = await client("PATCH", `${ACC}/conversations/${ids.conversation}/messages/${ids.message}/`, fd);
    const list = await client("GET", `${ACC}/conversations/${ids.conversation}/messages/`);
    const transcript = await client("GET", `${ACC}/conversations/${ids.conversation}/transcript/`);

    expect(updated.status).toBe(200);
    expect(updated.json).toMatchObject({ id: ids.message, content: "edited", attachments: [expect.objectContaining({ file_type: "image" })] });
    expect(list.status).toBe(200);
    expect(list.json.payload.find((m: { id: number }) => m.id === ids.message).attachments).toHaveLength(1);
    expect(transcript.status).toBe(200);
    expect(transcript.json.payload.messages.some((m: { attachments: unknown[] }) => m.attachments.length === 1)).toBe(true);
  });

  it("uploads a file at /upload/ and references it by attachment_ids", async () => {
    const fd = new FormData();
    fd.append("attachment", new Blob([png], { type: "image/png" }), "up.png");
    const up = await client("POST", `${ACC}/upload/`, fd);
    const msg = await client("POST", `${ACC}/conversations/${ids.conversation}/messages`, { attachment_ids: [String(up.json.blob_id)] });

    expect(up.status).toBe(200);
    expect(msg.status).toBe(200);
    // The upload's file, as an attachment of the message's own (its own id, as in Chatwoot).
    expect(msg.json.attachments[0]).toMatchObject({ id: expect.any(Number), message_id: msg.json.id, file_type: "image", blob_key: up.json.blob_key, file_size: png.length });
    expect(msg.json.attachments[0].id).not.toBe(up.json.blob_id);
  });

  it("reads reports without since/until (the last 30 days)", async () => {
    const res = await client("GET", "/api/v2/accounts/{account_id}/reports/?metric=conversations_count&type=account");
    expect(res.status).toBe(200);
    expect(res.json.length).toBeGreaterThanOrEqual(30);
    expect(res.json.reduce((n: number, p: { value: number }) => n + p.value, 0)).toBeGreaterThanOrEqual(1);
  });

  it("manages webhooks with trailing slashes and the wrapped body", async () => {
    const shown = await client("GET", `${ACC}/webhooks/${ids.webhook}/`);
    const updated = await client("PATCH", `${ACC}/webhooks/${ids.webhook}/`, { webhook: { subscriptions: ["message_created"] } });
    const list = await client("GET", `${ACC}/webhooks/`);
    const deleted = await client("DELETE", `${ACC}/webhooks/${ids.webhook}/`);

    expect(shown.status).toBe(200);
    expect(updated.json.payload.webhook.subscriptions).toEqual(["message_created"]);
    expect(list.status).toBe(200);
    expect(deleted.status).toBe(200);
  });

  it.each([
    ["a non-canonical path id", "GET", `${ACC}/inboxes/01`],
    ["an exponent path id", "GET", `${ACC}/conversations/1e0/`],
    ["a path no route serves", "GET", `${ACC}/nope/`],
  ])("answers %s with the API's 404", async (_what, method, path) => {
    const res = await client(method, path);
    expect(res.status).toBe(404);
    expect(res.json).toEqual({ error: "Resource could not be found", code: "not_found" });
  });

  it("reads repeated slashes as one, as Rails squeezes them", async () => {
    const res = await client("GET", `${ACC}//inboxes//`);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ payload: expect.any(Array) });
  });

  it("does not take a non-canonical account id for the account", async () => {
    const res = await client("GET", `/api/v1/accounts/0${sandbox.info.accountId}/inboxes`);
    expect(res.status).toBe(404);
  });
});
