import { QueryCommand, ScanCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { db, mainTableName } from "../../shared/db/client.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

let a: AccountFixture;
let b: AccountFixture;

beforeAll(async () => {
  a = await makeAccount("Inbox A");
  b = await makeAccount("Inbox B");
});

async function outboxFor(accountId: number) {
  const out = await db().send(
    new ScanCommand({
      TableName: mainTableName(),
      FilterExpression: "entity = :e AND accountId = :a",
      ExpressionAttributeValues: { ":e": "outbox", ":a": accountId },
      ConsistentRead: true,
    }),
  );
  return (out.Items ?? []).sort((x, y) => Number(x["occurredAt"]) - Number(y["occurredAt"]));
}

describe("inboxes", () => {
  it("creates inboxes with per-account integer ids and writes inbox_created to the outbox", async () => {
    const first = await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name: "API", channel: { type: "api" } } });
    const second = await invoke("inboxes.create", {
      params: { account_id: a.accountId },
      key: a.adminKey,
      body: { name: "Site", channel: { type: "web_widget", website_url: "https://acme.test" } },
    });
    const other = await invoke("inboxes.create", { params: { account_id: b.accountId }, key: b.adminKey, body: { name: "B", channel: { type: "api" } } });

    expect(first.status).toBe(200);
    expect(first.json).toMatchObject({ id: 1, account_id: a.accountId, name: "API", channel_type: "Channel::Api", website_token: null });
    expect(second.json).toMatchObject({ id: 2, channel_type: "Channel::WebWidget", website_url: "https://acme.test" });
    expect(second.json.website_token).toMatch(/^[A-Za-z0-9_-]{24}$/);
    // Without PUBLIC_API_URL the snippet loads the SDK from the address the request reached.
    expect(second.json.web_widget_script).toContain('var BASE_URL="https://test.local";');
    expect(other.json.id).toBe(1);

    const events = await outboxFor(a.accountId);
    expect(events.map((e) => e["event"])).toEqual(["inbox_created", "inbox_created"]);
    const payload = JSON.parse(String(events[0]!["payload"]));
    expect(payload).toMatchObject({ event: "inbox_created", id: "1", name: "API", channel_type: "Channel::Api", account: { id: a.accountId, name: "Inbox A" } });
    expect(events[0]!["inboxId"]).toBe(1);
    expect(Number(events[0]!["expiresAt"])).toBeGreaterThan(Date.now() / 1000 + 6 * 86400);
  });

  it("lists only the caller's account inboxes", async () => {
    const res = await invoke("inboxes.list", { params: { account_id: b.accountId }, key: b.agentKey });
    expect(res.status).toBe(200);
    expect(res.json.payload.map((i: { name: string }) => i.name)).toEqual(["B"]);
  });

  it("shows an inbox, and 404s for another account's inbox id", async () => {
    const ok = await invoke("inboxes.show", { params: { account_id: a.accountId, inbox_id: 2 }, key: a.agentKey });
    expect(ok.json.name).toBe("Site");
    const created = await invoke("inboxes.create", { params: { account_id: b.accountId }, key: b.adminKey, body: { name: "B2", channel: { type: "api" } } });
    expect(created.json.id).toBe(2);
    const missing = await invoke("inboxes.show", { params: { account_id: a.accountId, inbox_id: 3 }, key: a.agentKey });
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: "Resource could not be found", code: "not_found" });
    const bogus = await invoke("inboxes.show", { params: { account_id: a.accountId, inbox_id: "x1" }, key: a.agentKey });
    expect(bogus.status).toBe(404);
  });

  it("updates an inbox and emits inbox_updated once; an unchanged update emits nothing", async () => {
    const before = (await outboxFor(a.accountId)).length;
    const res = await invoke("inboxes.update", { params: { account_id: a.accountId, inbox_id: 1 }, key: a.adminKey, body: { name: "API v2", greeting_enabled: true } });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: 1, name: "API v2", greeting_enabled: true });
    const same = await invoke("inboxes.update", { params: { account_id: a.accountId, inbox_id: 1 }, key: a.adminKey, body: { name: "API v2" } });
    expect(same.status).toBe(200);
    const events = await outboxFor(a.accountId);
    expect(events.length).toBe(before + 1);
    expect(events.at(-1)!["event"]).toBe("inbox_updated");
    const shown = await invoke("inboxes.show", { params: { account_id: a.accountId, inbox_id: 1 }, key: a.agentKey });
    expect(shown.json.name).toBe("API v2");
  });

  it("stores every setting Chatwoot's inbox update takes, and its events carry the inbox as the reply shows it", async () => {
    const created = await invoke("inboxes.create", {
      params: { account_id: a.accountId },
      key: a.adminKey,
      body: { name: "Widget", channel: { type: "web_widget", website_url: "https://shop.example" }, business_name: "Shop" },
    });
    expect(created.json).toMatchObject({ sender_name_type: "friendly", business_name: "Shop", out_of_office_message: null, widget_color: "#1f93ff" });
    const body = { sender_name_type: "professional", business_name: "Shop Ltda", out_of_office_message: "Back at 9" };
    const res = await invoke("inboxes.update", { params: { account_id: a.accountId, inbox_id: created.json.id }, key: a.adminKey, body });
    expect(res.json).toMatchObject(body);
    const shown = await invoke("inboxes.show", { params: { account_id: a.accountId, inbox_id: created.json.id }, key: a.agentKey });
    expect(shown.json).toMatchObject(body);
    const bad = await invoke("inboxes.update", { params: { account_id: a.accountId, inbox_id: created.json.id }, key: a.adminKey, body: { sender_name_type: "formal" } });
    expect(bad.json.attributes).toEqual(["sender_name_type"]);

    const events = (await outboxFor(a.accountId)).filter((e) => Number(e["inboxId"]) === created.json.id);
    expect(events.map((e) => e["event"])).toEqual(["inbox_created", "inbox_updated"]);
    const { web_widget_script: _script, ...asShown } = shown.json;
    expect(JSON.parse(String(events[1]!["payload"]))).toEqual({ ...asShown, event: "inbox_updated", id: String(created.json.id), account: { id: a.accountId, name: expect.any(String) } });
  });

  it("cannot update another account's inbox", async () => {
    const res = await invoke("inboxes.update", { params: { account_id: a.accountId, inbox_id: 2 }, key: b.adminKey, body: { name: "hijack" } });
    expect(res.status).toBe(401);
    const shown = await invoke("inboxes.show", { params: { account_id: a.accountId, inbox_id: 2 }, key: a.adminKey });
    expect(shown.json.name).toBe("Site");
  });

  it("rejects invalid bodies with the documented 422 body", async () => {
    const res = await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { name: "  ", channel: { type: "sms", website_url: "ftp://x" } } });
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(expect.arrayContaining(["name", "channel.type", "channel.website_url"]));
    expect(res.json.errors).toContainEqual({ field: "name", code: "blank", message: "can't be blank" });
    expect(typeof res.json.message).toBe("string");
    const missing = await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.adminKey, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.json.attributes).toEqual(["name", "channel"]);
  });

  it("keeps concurrent creates distinct (atomic counter)", async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => invoke("inboxes.create", { params: { account_id: b.accountId }, key: b.adminKey, body: { name: `C${i}`, channel: { type: "api" } } })),
    );
    const ids = results.map((r) => r.json.id as number);
    expect(new Set(ids).size).toBe(10);
    const out = await db().send(
      new QueryCommand({
        TableName: mainTableName(),
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :p)",
        ExpressionAttributeValues: { ":pk": `ACCOUNT#${b.accountId}`, ":p": "INBOX#" },
      }),
    );
    expect(out.Items?.length).toBe(12);
  });
});
