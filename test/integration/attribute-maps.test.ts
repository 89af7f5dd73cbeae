/**
 * Free-form attribute maps on every route that stores one: a number outside ±2^53 or not finite,
 * nesting deeper than 10 levels, a prototype key or a map over 16 KB is a 422 naming the field
 * (never a 500 from the store); a good nested map round-trips unchanged.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { invoke, type Response } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { createInbox } from "../../shared/domain/inboxes.ts";
import { inboxesRepo } from "../../shared/db/inboxes-repo.ts";
import { outboxOf } from "../support/outbox.ts";

let a: AccountFixture;
let inboxId: number;
let contactId: number;
let conversationId: number;
let messageId: number;
let websiteToken: string;

const P = (extra: Record<string, number> = {}) => ({ account_id: a.accountId, ...extra });

beforeAll(async () => {
  a = await makeAccount("Attribute maps");
  inboxId = (await invoke("inboxes.create", { params: P(), key: a.adminKey, body: { name: "Support", channel: { type: "api" } } })).json.id;
  contactId = (await invoke("contacts.create", { params: P(), key: a.agentKey, body: { name: "Ana" } })).json.payload.contact.id;
  conversationId = (await invoke("conversations.create", { params: P(), key: a.agentKey, body: { inbox_id: inboxId, contact_id: contactId } })).json.id;
  messageId = (await invoke("messages.create", { params: P({ conversation_id: conversationId }), key: a.agentKey, body: { content: "hello" } })).json.id;
  const widget = await createInbox(inboxesRepo, a.accountId, { name: "Site", channel: { type: "web_widget", website_url: "https://maps.test" } }, new Date());
  websiteToken = widget.website_token!;
});

const nested = (levels: number): string => '{"a":'.repeat(levels - 1) + '{"leaf":1}' + "}".repeat(levels - 1);

/** Raw JSON text of each bad map: some cannot be written as a JS object literal (JSON.parse makes them unsafe). */
const BAD_MAPS: readonly (readonly [string, string])[] = [
  ["an integer beyond 2^53", '{"n":12345678901234567890}'],
  ["2^53 itself", '{"n":9007199254740992}'],
  ["a negative integer beyond -2^53", '{"list":[1,-9007199254740993]}'],
  ["a number JSON.parse turns into Infinity", '{"n":1e400}'],
  ["a number JSON.parse turns into -Infinity", '{"deep":{"n":-1e400}}'],
  ["a number nearer to 0 than the store keeps", '{"n":5e-324}'],
  ["a number just below the store's smallest", '{"n":-1e-131}'],
  ["nesting 11 levels deep", nested(11)],
  ["nesting 11 levels through arrays", '{"a":' + "[".repeat(10) + "1" + "]".repeat(10) + "}"],
  ["a __proto__ key", '{"__proto__":{"admin":true}}'],
  ["a nested constructor key", '{"x":{"constructor":{"prototype":{}}}}'],
  ["a prototype key", '{"prototype":1}'],
  ["an empty key", '{"":1}'],
  ["a nested empty key", '{"a":[{"":"x"}]}'],
  ["a map over 16 KB", JSON.stringify({ s: "x".repeat(16 * 1024) })],
];

interface Target {
  readonly route: string;
  readonly field: string;
  readonly send: (mapJson: string) => Promise<Response>;
  /** Reads back what was stored, for the round trip. */
  readonly stored: (res: Response) => Promise<unknown>;
}

const withMap = (fields: Record<string, unknown>, field: string, mapJson: string): string =>
  JSON.stringify(fields).replace(/}$/, `${Object.keys(fields).length ? "," : ""}"${field}":${mapJson}}`);

const targets = (): Target[] => [
  ...(["custom_attributes", "additional_attributes"] as const).flatMap((field): Target[] => [
    {
      route: "contacts.create",
      field,
      send: (m) => invoke("contacts.create", { params: P(), key: a.agentKey, body: withMap({ name: "Bea" }, field, m) }),
      stored: async (res) => (await invoke("contacts.show", { params: P({ contact_id: res.json.payload.contact.id }), key: a.agentKey })).json.payload[field],
    },
    {
      route: "contacts.update",
      field,
      send: (m) => invoke("contacts.update", { params: P({ contact_id: contactId }), key: a.agentKey, body: withMap({}, field, m) }),
      stored: async () => (await invoke("contacts.show", { params: P({ contact_id: contactId }), key: a.agentKey })).json.payload[field],
    },
    {
      route: "conversations.create",
      field,
      send: (m) => invoke("conversations.create", { params: P(), key: a.agentKey, body: withMap({ inbox_id: inboxId, contact_id: contactId }, field, m) }),
      stored: async (res) => (await invoke("conversations.show", { params: P({ conversation_id: res.json.id }), key: a.agentKey })).json[field],
    },
    {
      route: "conversations.update",
      field,
      send: (m) => invoke("conversations.update", { params: P({ conversation_id: conversationId }), key: a.agentKey, body: withMap({}, field, m) }),
      stored: async () => (await invoke("conversations.show", { params: P({ conversation_id: conversationId }), key: a.agentKey })).json[field],
    },
  ]),
  {
    route: "messages.create",
    field: "content_attributes",
    send: (m) => invoke("messages.create", { params: P({ conversation_id: conversationId }), key: a.agentKey, body: withMap({ content: "hi" }, "content_attributes", m) }),
    stored: async (res) => messageAttributes(res.json.id),
  },
  {
    route: "messages.update",
    field: "content_attributes",
    send: (m) => invoke("messages.update", { params: P({ conversation_id: conversationId, message_id: messageId }), key: a.agentKey, body: withMap({}, "content_attributes", m) }),
    stored: async () => messageAttributes(messageId),
  },
  {
    route: "widget.events",
    field: "event_info",
    send: (m) => invoke("widget.events", { query: { website_token: websiteToken }, body: withMap({ name: "webwidget.triggered" }, "event_info", m) }),
    stored: async () => (await outboxOf(a.accountId, "webwidget_triggered")).at(-1)!.payload.event_info,
  },
];

async function messageAttributes(id: number): Promise<unknown> {
  const list = await invoke("messages.list", { params: P({ conversation_id: conversationId }), key: a.agentKey });
  return (list.json.payload as { id: number; content_attributes: unknown }[]).find((m) => m.id === id)!.content_attributes;
}

const cases = targets().flatMap((t) => BAD_MAPS.map(([label, json]) => [t.route, t.field, label, json] as const));

describe("a bad attribute map is a 422 naming the field, on every route that stores one", () => {
  it.each(cases)("%s %s: %s", async (route, field, _label, json) => {
    const target = targets().find((t) => t.route === route && t.field === field)!;

    const res = await target.send(json);

    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual([field]);
    expect(res.json.errors[0].field).toBe(field);
  });
});

describe("a good nested map round-trips", () => {
  const good = {
    plan: "pro",
    seats: 9007199254740991,
    floor: -9007199254740991,
    ratio: 0.25,
    tiny: 1e-130,
    zero: -0.5,
    flags: [true, false, null],
    deep: JSON.parse(nested(9)) as unknown,
    note: "ünïcødé ✓",
  };

  it.each(targets().map((t) => [t.route, t.field] as const))("%s %s", async (route, field) => {
    const target = targets().find((t) => t.route === route && t.field === field)!;

    const res = await target.send(JSON.stringify(good));

    expect(res.status).toBeLessThan(300);
    expect(await target.stored(res)).toEqual(good);
  });
});
