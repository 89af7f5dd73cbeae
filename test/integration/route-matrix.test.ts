/**
 * Matrices over THE route table: every route, present and future, is checked for
 * authentication, tenant isolation, role, malformed and oversize bodies.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { bodyKind, DEFAULT_MAX_BODY_BYTES, pathParams, routes, type Route } from "../../shared/routes.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

const keyRoutes: Route[] = routes.filter((r) => r.auth === "api_key");
const accountRoutes: Route[] = keyRoutes.filter((r) => pathParams(r.path).includes("account_id"));
const adminRoutes: Route[] = accountRoutes.filter((r) => r.role === "administrator");
/** Routes taking JSON (the "form" ones take JSON too, or multipart/form-data). */
const jsonRoutes: Route[] = routes.filter((r) => bodyKind(r) === "json" || bodyKind(r) === "form");

let a: AccountFixture;
let b: AccountFixture;

beforeAll(async () => {
  a = await makeAccount("Tenant A");
  b = await makeAccount("Tenant B");
});

const paramsFor = (accountId: number) => ({ account_id: accountId });

describe("authentication on every api_key route", () => {
  it.each(keyRoutes.map((r) => [r.id, r] as const))("%s: no key -> 401 unauthorized", async (_id, route) => {
    const res = await invoke(route, { params: paramsFor(a.accountId) });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: "Invalid Access Token", code: "unauthorized" });
    expect(res.headers["x-request-id"]).toBeTruthy();
  });

  it.each(keyRoutes.map((r) => [r.id, r] as const))("%s: unknown key -> 401 unauthorized", async (_id, route) => {
    const res = await invoke(route, { params: paramsFor(a.accountId), key: "cv_not-a-real-key" });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe("unauthorized");
  });
});

describe("tenant isolation on every account route", () => {
  it.each(accountRoutes.map((r) => [r.id, r] as const))("%s: another account's id -> 401 forbidden_account", async (_id, route) => {
    const res = await invoke(route, { params: paramsFor(b.accountId), key: a.adminKey, body: {} });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: "You are not authorized to access this account", code: "forbidden_account" });
  });

});

describe("path ids must be canonical integers", () => {
  const NON_CANONICAL = ["abc", "01", "1.0", "1e0", "+1", "0x1", "0"];
  const forms = (id: number) => NON_CANONICAL.map((f) => (f === "abc" || f === "0" || f === "0x1" ? f : f.replace("1", String(id))));

  it.each(accountRoutes.map((r) => [r.id, r] as const))("%s: a non-canonical account id (01, 1.0, 1e0, +1, ...) -> 404 not_found", async (_id, route) => {
    for (const account_id of forms(a.accountId)) {
      const res = await invoke(route, { params: { account_id }, key: a.adminKey, body: {} });

      expect(res.status, account_id).toBe(404);
      expect(res.json).toEqual({ error: "Resource could not be found", code: "not_found" });
    }
  });
});

describe("list paging on every list route", () => {
  const listRoutes: Route[] = routes.filter((r) => r.method === "GET" && /\.(list|search|deliveries)$/.test(r.id));
  const params = (r: Route) => Object.fromEntries(pathParams(r.path).map((p) => [p, p === "account_id" ? a.accountId : 1]));

  it("the table has list routes, among them the inbox and webhook lists", () => {
    expect(listRoutes.map((r) => r.id)).toEqual(expect.arrayContaining(["inboxes.list", "webhooks.list", "contacts.list", "webhooks.deliveries"]));
  });

  it.each(listRoutes.map((r) => [r.id, r] as const))("%s: a non-integer per -> 422 on per; an out-of-range one is clamped, not refused", async (_id, route) => {
    const key = route.role === "administrator" || !route.role ? a.adminKey : a.agentKey;
    for (const per of ["abc", "1.5", "1e1", "", " 5"]) {
      const res = await invoke(route, { params: params(route), key, query: { q: "x", per } });

      expect(res.status, per).toBe(422);
      expect(res.json.attributes, per).toEqual(["per"]);
    }
    for (const per of ["0", "1000", "-3"]) expect((await invoke(route, { params: params(route), key, query: { q: "x", per } })).status, per).not.toBe(422);
  });
});

describe("roles", () => {
  it("the table has account routes", () => {
    expect(accountRoutes.length).toBeGreaterThan(0);
  });
  it.each(adminRoutes.map((r) => [r.id, r] as const))("%s: an agent key -> 401 forbidden_action", async (_id, route) => {
    const res = await invoke(route, { params: paramsFor(a.accountId), key: a.agentKey, body: {} });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ error: "You are not authorized to do this action", code: "forbidden_action" });
  });
});

describe("bad input on every JSON route", () => {
  const keyFor = (r: Route) => (r.auth === "api_key" ? a.adminKey : undefined);

  it.each(jsonRoutes.map((r) => [r.id, r] as const))("%s: malformed JSON -> 400 bad_json", async (_id, route) => {
    const res = await invoke(route, { params: paramsFor(a.accountId), key: keyFor(route)!, body: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ error: "Malformed JSON body", code: "bad_json" });
  });

  it.each(jsonRoutes.map((r) => [r.id, r] as const))("%s: body over the route's limit -> 413 too_large", async (_id, route) => {
    const big = JSON.stringify({ name: "x".repeat((route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES) + 1) });
    const res = await invoke(route, { params: paramsFor(a.accountId), key: keyFor(route)!, body: big });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ error: "Payload too large", code: "too_large" });
  });

  it.each(jsonRoutes.map((r) => [r.id, r] as const))("%s: a JSON array body never gives a 500", async (_id, route) => {
    const res = await invoke(route, { params: paramsFor(a.accountId), key: keyFor(route)!, body: "[1,2,3]" });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });
});
