import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { setClock } from "../../shared/clock.ts";
import { db, mainTableName } from "../../shared/db/client.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

let a: AccountFixture;
let b: AccountFixture;
let inboxA = 0;
let inboxB = 0;

beforeAll(async () => {
  a = await makeAccount("Hooks A");
  b = await makeAccount("Hooks B");
  inboxA = (await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { name: "Support", channel: { type: "api" } } })).json.id;
  inboxB = (await invoke("inboxes.create", { params: { account_id: b.accountId }, key: b.adminKey, body: { name: "Other", channel: { type: "api" } } })).json.id;
});

const create = (f: AccountFixture, body: unknown) => invoke("webhooks.create", { params: { account_id: f.accountId }, key: f.adminKey, body });

async function markers(accountId: number) {
  const out = await db().send(
    new QueryCommand({
      TableName: mainTableName(),
      KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
      ExpressionAttributeValues: { ":pk": `ACCOUNT#${accountId}`, ":p": "WHURL#" },
      ConsistentRead: true,
    }),
  );
  return out.Items ?? [];
}

describe("webhook API", () => {
  it("creates an account-scope webhook with W's fields and a whsec_ secret", async () => {
    const res = await create(a, { url: "https://hooks.example.com/a", subscriptions: ["message_created", "inbox_created"], name: "CRM" });
    expect(res.status).toBe(200);
    const w = res.json.payload.webhook;
    expect(w).toMatchObject({
      id: 1, name: "CRM", url: "https://hooks.example.com/a", account_id: a.accountId,
      subscriptions: ["message_created", "inbox_created"], webhook_type: "account_type", inbox: null,
    });
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(typeof w.created_at).toBe("number");
    expect(typeof w.updated_at).toBe("number");
  });

  it("accepts the Chatwoot-wrapped body, and inbox_id alone implies inbox_type", async () => {
    const res = await create(a, { webhook: { url: "https://hooks.example.com/inbox", subscriptions: ["message_created"], inbox_id: inboxA } });
    expect(res.status).toBe(200);
    expect(res.json.payload.webhook).toMatchObject({ id: 2, webhook_type: "inbox_type", inbox: { id: inboxA, name: "Support" } });
  });

  it.each([
    [{ url: "ftp://x.example.com", subscriptions: ["message_created"] }, ["url"]],
    [{ url: "not a url", subscriptions: ["message_created"] }, ["url"]],
    [{ url: "https://ok.example.com", subscriptions: [] }, ["subscriptions"]],
    [{ url: "https://ok.example.com", subscriptions: ["message_created", "nope"] }, ["subscriptions"]],
    [{ url: "https://ok.example.com", subscriptions: [42] }, ["subscriptions"]],
    [{ url: "https://ok.example.com", subscriptions: ["message_created"], webhook_type: "inbox_type" }, ["inbox_id"]],
    [{ url: "https://ok.example.com", subscriptions: ["message_created"], inbox_id: 999 }, ["inbox_id"]],
    [{ url: "https://ok.example.com", subscriptions: ["message_created"], inbox_id: "x" }, ["inbox_id"]],
    [{ url: "https://ok.example.com", subscriptions: ["message_created"], status: "paused" }, ["status"]],
    [{ url: "https://ok.example.com:0/h", subscriptions: ["message_created"] }, ["url"]],
    [{ url: `https://ok.example.com/${"a".repeat(2048)}`, subscriptions: ["message_created"] }, ["url"]],
    [{ url: "https://ok.example.com/a\r\nX-Injected: 1", subscriptions: ["message_created"] }, ["url"]],
    [{ url: "https://ok.example.com/a\u0000b", subscriptions: ["message_created"] }, ["url"]],
    [{ url: "https://ok.example.com/a b", subscriptions: ["message_created"] }, ["url"]],
    [{ url: "https://ok.example.com\t/a", subscriptions: ["message_created"] }, ["url"]],
    [{ url: "https://ok.example.com/a\u0085b", subscriptions: ["message_created"] }, ["url"]],
  ])("422 for %j on %j", async (body, attributes) => {
    const res = await create(a, body);
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(attributes);
  });

  it("says 'Subscriptions Invalid events' for an unknown event", async () => {
    const res = await create(a, { url: "https://ok.example.com", subscriptions: ["sms_sent"] });
    expect(res.json).toMatchObject({ message: "Subscriptions Invalid events", attributes: ["subscriptions"] });
  });

  it("refuses another account's inbox", async () => {
    const res = await create(a, { url: "https://ok.example.com/x", subscriptions: ["message_created"], inbox_id: inboxB + 100 });
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["inbox_id"]);
  });

  it("refuses a url already registered in the account (normalized), not in another account", async () => {
    const dup = await create(a, { url: "HTTPS://Hooks.Example.com:443/a", subscriptions: ["contact_created"] });
    expect(dup.status).toBe(422);
    expect(dup.json).toEqual({
      message: "Url has already been taken",
      attributes: ["url"],
      errors: [{ field: "url", code: "taken", message: "has already been taken" }],
    });
    const other = await create(b, { url: "https://hooks.example.com/a", subscriptions: ["contact_created"] });
    expect(other.status).toBe(200);
  });

  it("lets exactly one of concurrent creates of the same url win", async () => {
    const results = await Promise.all(Array.from({ length: 6 }, () => create(b, { url: "https://race.example.com/h", subscriptions: ["message_created"] })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422, 422]);
    const list = await invoke("webhooks.list", { params: { account_id: b.accountId }, key: b.adminKey });
    expect(list.json.payload.webhooks.filter((w: { url: string }) => w.url === "https://race.example.com/h")).toHaveLength(1);
    expect((await markers(b.accountId)).length).toBe(list.json.payload.webhooks.length);
  });

  it("lists and shows only the caller's webhooks; 404 for another account's id", async () => {
    const list = await invoke("webhooks.list", { params: { account_id: a.accountId }, key: a.adminKey });
    expect(list.status).toBe(200);
    expect(list.json.payload.webhooks.map((w: { id: number }) => w.id)).toEqual([1, 2]);
    const show = await invoke("webhooks.show", { params: { account_id: a.accountId, webhook_id: 2 }, key: a.adminKey });
    expect(show.json.payload.webhook).toMatchObject({ id: 2, inbox: { id: inboxA, name: "Support" } });
    const missing = await invoke("webhooks.show", { params: { account_id: a.accountId, webhook_id: 99 }, key: a.adminKey });
    expect(missing.status).toBe(404);
  });

  it("updates fields, moves the url marker atomically, and refuses a taken url", async () => {
    const upd = await invoke("webhooks.update", {
      params: { account_id: a.accountId, webhook_id: 1 },
      key: a.adminKey,
      body: { webhook: { url: "https://hooks.example.com/a2", subscriptions: ["contact_updated"], name: "CRM 2" } },
    });
    expect(upd.status).toBe(200);
    expect(upd.json.payload.webhook).toMatchObject({ url: "https://hooks.example.com/a2", subscriptions: ["contact_updated"], name: "CRM 2" });
    // The old url is free again, the new one is taken.
    expect((await create(a, { url: "https://hooks.example.com/a", subscriptions: ["message_created"] })).status).toBe(200);
    const clash = await invoke("webhooks.update", { params: { account_id: a.accountId, webhook_id: 2 }, key: a.adminKey, body: { url: "https://hooks.example.com/a2" } });
    expect(clash.status).toBe(422);
    expect(clash.json.attributes).toEqual(["url"]);
    const toAccount = await invoke("webhooks.update", { params: { account_id: a.accountId, webhook_id: 2 }, key: a.adminKey, body: { webhook_type: "account_type" } });
    expect(toAccount.json.payload.webhook).toMatchObject({ webhook_type: "account_type", inbox: null });
    expect((await markers(a.accountId)).length).toBe(3);
  });

  it("resets the secret", async () => {
    const before = (await invoke("webhooks.show", { params: { account_id: a.accountId, webhook_id: 1 }, key: a.adminKey })).json.payload.webhook.secret;
    const res = await invoke("webhooks.reset_secret", { params: { account_id: a.accountId, webhook_id: 1 }, key: a.adminKey });
    expect(res.status).toBe(200);
    expect(res.json.payload.webhook.secret).toMatch(/^whsec_/);
    expect(res.json.payload.webhook.secret).not.toBe(before);
  });

  it("deletes with an empty 200, frees the url for re-registration, and 404s after", async () => {
    const del = await invoke("webhooks.delete", { params: { account_id: a.accountId, webhook_id: 1 }, key: a.adminKey });
    expect(del.status).toBe(200);
    expect(del.text).toBe("");
    expect((await invoke("webhooks.show", { params: { account_id: a.accountId, webhook_id: 1 }, key: a.adminKey })).status).toBe(404);
    expect((await invoke("webhooks.delete", { params: { account_id: a.accountId, webhook_id: 1 }, key: a.adminKey })).status).toBe(404);
    const again = await create(a, { url: "https://hooks.example.com/a2", subscriptions: ["message_created"] });
    expect(again.status).toBe(200);
    expect(again.json.payload.webhook.id).toBeGreaterThan(2);
  });

  it("refuses agents (administrators only)", async () => {
    const res = await invoke("webhooks.list", { params: { account_id: a.accountId }, key: a.agentKey });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe("forbidden_action");
  });
});

describe("updating a webhook's scope, status and pacing", () => {
  const update = (id: number, body: unknown) => invoke("webhooks.update", { params: { account_id: a.accountId, webhook_id: id }, key: a.adminKey, body });
  let n = 0;
  const fresh = async (extra: Record<string, unknown> = {}) =>
    (await create(a, { url: `https://update-${++n}.example.com/h`, subscriptions: ["message_created"], ...extra })).json.payload.webhook as { id: number };

  it("stores the url without the whitespace around it", async () => {
    const res = await create(a, { url: "  https://trimmed.example.com/h  ", subscriptions: ["message_created"] });
    expect(res.json.payload.webhook.url).toBe("https://trimmed.example.com/h");
    const moved = await update(res.json.payload.webhook.id, { url: "\thttps://trimmed.example.com/moved \n" });
    expect(moved.json.payload.webhook.url).toBe("https://trimmed.example.com/moved");
  });

  it("inbox_id alone moves an account webhook to that inbox, and inbox_id null moves it back", async () => {
    const w = await fresh();
    const toInbox = await update(w.id, { inbox_id: inboxA });
    expect(toInbox.status).toBe(200);
    expect(toInbox.json.payload.webhook).toMatchObject({ webhook_type: "inbox_type", inbox: { id: inboxA, name: "Support" } });
    const back = await update(w.id, { inbox_id: null });
    expect(back.json.payload.webhook).toMatchObject({ webhook_type: "account_type", inbox: null });
    // What was stored, not only what was replied.
    const shown = await invoke("webhooks.show", { params: { account_id: a.accountId, webhook_id: w.id }, key: a.adminKey });
    expect(shown.json.payload.webhook).toMatchObject({ webhook_type: "account_type", inbox: null });
  });

  it("webhook_type inbox_type alone keeps the inbox it had, and needs one", async () => {
    const scoped = await fresh({ inbox_id: inboxA });
    const again = await update(scoped.id, { webhook_type: "inbox_type" });
    expect(again.json.payload.webhook).toMatchObject({ webhook_type: "inbox_type", inbox: { id: inboxA, name: "Support" } });

    const plain = await fresh();
    const blank = await update(plain.id, { webhook_type: "inbox_type" });
    expect(blank.status).toBe(422);
    expect(blank.json).toEqual({ message: "Inbox id can't be blank", attributes: ["inbox_id"], errors: [{ field: "inbox_id", code: "blank", message: "can't be blank" }] });
    const other = await update(plain.id, { inbox_id: inboxA + 999 });
    expect(other.json).toEqual({ message: "Inbox id is invalid", attributes: ["inbox_id"], errors: [{ field: "inbox_id", code: "invalid", message: "is invalid" }] });
  });

  it("status disabled turns it off by hand, a second disable keeps the first one's time, active turns it back on", async () => {
    const w = await fresh();
    const t0 = Math.floor(Date.now() / 1000);
    setClock(() => (t0 + 100) * 1000);
    try {
      const off = await update(w.id, { status: "disabled" });
      expect(off.json.payload.webhook).toMatchObject({ status: "disabled", disabled_reason: "disabled by an administrator", disabled_at: t0 + 100 });
      setClock(() => (t0 + 200) * 1000);
      const offAgain = await update(w.id, { status: "disabled", name: "Still off" });
      expect(offAgain.json.payload.webhook).toMatchObject({ status: "disabled", disabled_at: t0 + 100, name: "Still off" });
      const on = await update(w.id, { status: "active" });
      expect(on.json.payload.webhook).toMatchObject({ status: "active", disabled_reason: null, disabled_at: null });
    } finally {
      setClock(undefined);
    }
  });

  it("status disabled on create makes it off from the start, as a disable by hand; active turns it on", async () => {
    const res = await create(a, { url: "https://hooks.example.com/created-off", subscriptions: ["inbox_created"], status: "disabled" });
    expect(res.status).toBe(200);
    const w = res.json.payload.webhook;
    expect(w).toMatchObject({ status: "disabled", disabled_reason: "disabled by an administrator", disabled_at: expect.any(Number) });
    const on = await update(w.id, { status: "active" });
    expect(on.json.payload.webhook).toMatchObject({ status: "active", disabled_reason: null, disabled_at: null });
    const active = await create(a, { url: "https://hooks.example.com/created-on", subscriptions: ["inbox_created"], status: "active" });
    expect(active.json.payload.webhook).toMatchObject({ status: "active", disabled_at: null });
  });

  it("rate_limit paces it, null lifts the pace, and an update without it keeps it", async () => {
    const w = await fresh({ rate_limit: 3 });
    expect((await update(w.id, { rate_limit: 7 })).json.payload.webhook.rate_limit).toBe(7);
    expect((await update(w.id, { name: "Paced" })).json.payload.webhook.rate_limit).toBe(7);
    expect((await update(w.id, { rate_limit: null })).json.payload.webhook.rate_limit).toBeNull();
    // An integer field, so a string of digits as Rails casts it; within 1..10000.
    expect((await update(w.id, { rate_limit: "12" })).json.payload.webhook.rate_limit).toBe(12);
    for (const bad of [0, "0", 10_001, "1.5", 2.5]) expect((await update(w.id, { rate_limit: bad })).json.attributes).toEqual(["rate_limit"]);
  });
});

describe("a url whose host is a literal non-public address is refused at registration", () => {
  const LITERALS = [
    "http://127.0.0.1/hook", "http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.1/", "http://0/",
    "http://10.1.2.3:8080/", "http://169.254.169.254/latest/meta-data", "http://0xa9fea9fe/", "http://[::1]/", "http://[::]/",
    "http://[::ffff:127.0.0.1]/", "http://[::ffff:0:127.0.0.1]/", "http://[64:ff9b::10.0.0.1]/", "http://[fd00:ec2::254]/",
    "http://[fe80::1]/", "http://[fe80::1%25eth0]/", "https://192.168.0.10./x",
  ];
  const update = (id: number, body: unknown) => invoke("webhooks.update", { params: { account_id: a.accountId, webhook_id: id }, key: a.adminKey, body });
  let n = 0;

  it.each(LITERALS)("create and update with %s -> 422 on url", async (url) => {
    const existing = (await create(a, { url: `https://literal-${++n}.example.com/`, subscriptions: ["message_created"] })).json.payload.webhook.id as number;

    const created = await create(a, { url, subscriptions: ["message_created"] });
    const updated = await update(existing, { url });

    for (const res of [created, updated]) {
      expect(res.status).toBe(422);
      expect(res.json.attributes).toEqual(["url"]);
    }
  });

  it("WEBHOOK_ALLOW_PRIVATE_NETWORK=true lifts it (local use)", async () => {
    Object.assign(process.env, { WEBHOOK_ALLOW_PRIVATE_NETWORK: "true" });
    resetConfig();
    try {
      const res = await create(a, { url: "http://[::ffff:0:127.0.0.1]:9/private", subscriptions: ["message_created"] });

      expect(res.status).toBe(200);
    } finally {
      Object.assign(process.env, { WEBHOOK_ALLOW_PRIVATE_NETWORK: "false" });
      resetConfig();
    }
  });
});
