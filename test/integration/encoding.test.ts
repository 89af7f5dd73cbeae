/**
 * Text that is not valid UTF-8 (body, query, path), a malformed percent-encoding or a lone
 * surrogate is a 400 bad_encoding at the handlers' layer, and nothing is stored.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Context } from "aws-lambda";
import { eventFor, handlerOf, invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { routeById } from "../../shared/routes.ts";

let a: AccountFixture;
const BAD = { error: expect.any(String), code: "bad_encoding" };

beforeAll(async () => {
  a = await makeAccount("Encoding Co");
});

/** Invokes a route with the event's raw parts replaced (what API Gateway would hand over). */
async function raw(routeId: "accounts.show" | "contacts.search" | "contacts.show", over: { rawPath?: string; rawQueryString?: string; query?: Record<string, string>; params?: Record<string, string> }) {
  const route = routeById(routeId);
  const ev = eventFor(route, { params: { account_id: a.accountId, contact_id: 1 }, key: a.adminKey });
  const event = {
    ...ev,
    ...(over.rawPath !== undefined ? { rawPath: over.rawPath } : {}),
    ...(over.rawQueryString !== undefined ? { rawQueryString: over.rawQueryString } : {}),
    ...(over.query ? { queryStringParameters: over.query } : {}),
    ...(over.params ? { pathParameters: { ...ev.pathParameters, ...over.params } } : {}),
  };
  const res = await (await handlerOf(route))(event, { getRemainingTimeInMillis: () => 10_000 } as unknown as Context);
  return { status: res.statusCode, json: JSON.parse(res.body ?? "null") };
}

describe("bad_encoding", () => {
  it("rejects a JSON body with invalid UTF-8 bytes, and stores nothing", async () => {
    const body = Buffer.concat([Buffer.from('{"name":"Bad '), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);

    const res = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body });

    expect([res.status, res.json]).toEqual([400, BAD]);
    const list = await invoke("contacts.list", { params: { account_id: a.accountId }, key: a.agentKey });
    expect(list.json.payload).toEqual([]);
  });

  it("rejects a lone surrogate in a JSON string, escaped or not", async () => {
    const escaped = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: '{"name":"x\\ud800y"}' });
    const literal = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: '{"name":"x\ud800y"}' });

    expect([escaped.status, escaped.json]).toEqual([400, BAD]);
    expect([literal.status, literal.json]).toEqual([400, BAD]);
  });

  it("still answers bad_json for malformed JSON in valid UTF-8", async () => {
    const res = await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: '{"name": "é' });

    expect([res.status, res.json.code]).toEqual([400, "bad_json"]);
  });

  it("rejects a malformed percent-encoding or invalid UTF-8 in the path", async () => {
    const malformed = await raw("accounts.show", { rawPath: "/api/v1/accounts/%E0%A4%A", params: { account_id: "%E0%A4%A" } });
    const invalid = await raw("accounts.show", { rawPath: "/api/v1/accounts/%FF", params: { account_id: "\ufffd" } });
    const surrogate = await raw("contacts.show", { params: { contact_id: "\udc00" } });

    expect([malformed.status, malformed.json]).toEqual([400, BAD]);
    expect([invalid.status, invalid.json]).toEqual([400, BAD]);
    expect([surrogate.status, surrogate.json]).toEqual([400, BAD]);
  });

  it("rejects invalid UTF-8 or a malformed escape in the query, and keeps valid escapes", async () => {
    const invalid = await raw("contacts.search", { rawQueryString: "q=%C3%28", query: { q: "\ufffd(" } });
    const malformed = await raw("contacts.search", { rawQueryString: "q=ab%2", query: { q: "ab%2" } });
    const fine = await raw("contacts.search", { rawQueryString: "q=J%C3%A9r%C3%B4me+x", query: { q: "Jérôme x" } });

    expect([invalid.status, invalid.json]).toEqual([400, BAD]);
    expect([malformed.status, malformed.json]).toEqual([400, BAD]);
    expect(fine.status).toBe(200);
  });
});

describe("the query as Rails reads it", () => {
  it("takes the last value of a name given twice (API Gateway joins them with commas), and + as a space", async () => {
    await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name: "Twice Named Person" } });

    // What API Gateway hands over for ?q=nobody&q=Twice+Named: the raw string, and the values joined.
    const twice = await raw("contacts.search", { rawQueryString: "q=nobody&q=Twice+Named", query: { q: "nobody,Twice Named" } });

    expect(twice.status).toBe(200);
    expect(twice.json.payload.map((c: { name: string }) => c.name)).toEqual(["Twice Named Person"]);
  });
});
