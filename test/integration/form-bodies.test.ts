/**
 * Bodies as Rails takes them on JSON routes: form-encoded fields (nested with brackets) stand for
 * the JSON body; a multipart body where only JSON is taken is a clear 415.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

let a: AccountFixture;
const FORM = { "content-type": "application/x-www-form-urlencoded" };

beforeAll(async () => {
  a = await makeAccount("Forms");
});

describe("form-encoded bodies on JSON routes", () => {
  it("create a contact with nested attribute maps, as a Rails form", async () => {
    const res = await invoke("contacts.create", {
      params: { account_id: a.accountId },
      key: a.agentKey,
      headers: FORM,
      body: "name=Maria+Souza&email=maria%40forms.example&custom_attributes[plan]=pro&blocked=false",
    });
    expect(res.status).toBe(200);
    expect(res.json.payload.contact).toMatchObject({ name: "Maria Souza", email: "maria@forms.example", custom_attributes: { plan: "pro" }, blocked: false });
  });

  it("create a webhook from Chatwoot's wrapped form, and a conversation with its first message", async () => {
    const hook = await invoke("webhooks.create", {
      params: { account_id: a.accountId },
      key: a.adminKey,
      headers: FORM,
      body: "webhook[url]=https%3A%2F%2Fhooks.forms.example%2Fh&webhook[subscriptions][]=inbox_created&webhook[subscriptions][]=contact_created",
    });
    expect(hook.status).toBe(200);
    expect(hook.json.payload.webhook).toMatchObject({ url: "https://hooks.forms.example/h", subscriptions: ["inbox_created", "contact_created"] });

    const inbox = (await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.adminKey, headers: FORM, body: "name=Site&channel[type]=api" })).json;
    expect(inbox).toMatchObject({ name: "Site", channel_type: "Channel::Api" });
    const contact = (await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: "name=Ana" })).json.payload.contact;
    const conv = await invoke("conversations.create", {
      params: { account_id: a.accountId },
      key: a.agentKey,
      headers: FORM,
      body: `inbox_id=${inbox.id}&contact_id=${contact.id}&message[content]=Ol%C3%A1&message[private]=false`,
    });
    expect(conv.status).toBe(200);
    expect(conv.json.messages[0]).toMatchObject({ content: "Olá", private: false });
  });

  it("still read JSON sent as form-encoded (curl -d), and answer what is neither as before", async () => {
    const json = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: JSON.stringify({ name: "Json Via Form" }) });
    expect(json.json.payload.contact.name).toBe("Json Via Form");
    const broken = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: "{oops" });
    expect([broken.status, broken.json]).toEqual([400, { error: "Malformed JSON body", code: "bad_json" }]);
    const asJson = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: "name=Maria" });
    expect([asJson.status, asJson.json.code]).toEqual([400, "bad_json"]);
    const badEscape = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: "name=%ZZ" });
    expect([badEscape.status, badEscape.json.code]).toEqual([400, "bad_encoding"]);
    const missing = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: "email=x%40y.example" });
    expect([missing.status, missing.json.attributes]).toEqual([422, ["name"]]);
  });

  it("read a blank value of a field that may be null as null, as Rails reads an empty form input", async () => {
    const contact = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: "name=Blank&email=&phone_number=&identifier=" });
    expect(contact.status).toBe(200);
    expect(contact.json.payload.contact).toMatchObject({ name: "Blank", email: null, phone_number: null, identifier: null });
    const inbox = (await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.adminKey, body: { name: "Blanks", channel: { type: "api" } } })).json;
    const conv = (await invoke("conversations.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { inbox_id: inbox.id, contact_id: contact.json.payload.contact.id, assignee_id: a.agentUserId, priority: "high" } })).json;
    expect(conv.meta.assignee).toMatchObject({ id: a.agentUserId });
    // An empty assignee unassigns, an empty priority is none.
    const unassigned = await invoke("conversations.assignments", { params: { account_id: a.accountId, conversation_id: conv.id }, key: a.agentKey, headers: FORM, body: "assignee_id=" });
    expect([unassigned.status, unassigned.json]).toEqual([200, null]);
    const noPriority = await invoke("conversations.update", { params: { account_id: a.accountId, conversation_id: conv.id }, key: a.agentKey, headers: FORM, body: "priority=" });
    expect(noPriority.json.priority).toBeNull();
    const hook = await invoke("webhooks.create", { params: { account_id: a.accountId }, key: a.adminKey, headers: FORM, body: "url=https%3A%2F%2Fblank.forms.example%2Fh&subscriptions[]=inbox_created&rate_limit=&inbox_id=" });
    expect(hook.json.payload.webhook).toMatchObject({ rate_limit: null, inbox: null, webhook_type: "account_type" });
    // Where a value is required, blank is still "can't be blank".
    const noName = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: FORM, body: "name=" });
    expect(noName.json.errors).toEqual([{ field: "name", code: "blank", message: "can't be blank" }]);
  });

  it("answer a multipart body on a JSON-only route with 415, whatever its parts", async () => {
    const boundary = "forms-boundary";
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nMaria\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="avatar"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n\x89PNG\xff\xfe\r\n--${boundary}--\r\n`,
      "latin1",
    );
    const res = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, headers: { "content-type": `multipart/form-data; boundary=${boundary}` }, body });
    expect([res.status, res.json]).toEqual([415, { error: "This endpoint takes a JSON (or form-urlencoded) body, not multipart/form-data", code: "unsupported_media_type" }]);
  });
});
