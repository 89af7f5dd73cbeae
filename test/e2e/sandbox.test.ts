/**
 * The sandbox over real HTTP: the same handler modules behind the API Gateway emulation,
 * on a free port, against the run's DynamoDB Local.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox("e2e");
});

afterAll(async () => {
  await sandbox?.stop();
});

const call = (path: string, init: RequestInit & { key?: string } = {}) =>
  fetch(`${sandbox.info.apiBase.replace("localhost", "127.0.0.1")}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...(init.key ? { api_access_token: init.key } : {}), ...(init.headers as Record<string, string>) },
    signal: AbortSignal.timeout(10_000),
  });

describe("sandbox over HTTP", () => {
  it("serves the account to its administrator key, with a request id", async () => {
    const { accountId, adminApiKey } = sandbox.info;
    const res = await call(`/api/v1/accounts/${accountId}`, { key: adminApiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toMatchObject({ id: accountId, name: "Acme Demo" });
  });

  it("gives the 401 bodies for a wrong key and another account", async () => {
    const { accountId, adminApiKey } = sandbox.info;
    const wrong = await call(`/api/v1/accounts/${accountId}`, { key: "nope" });
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: "Invalid Access Token", code: "unauthorized" });
    const other = await call(`/api/v1/accounts/${accountId + 1000}`, { key: adminApiKey });
    expect(other.status).toBe(401);
    expect(await other.json()).toEqual({ error: "You are not authorized to access this account", code: "forbidden_account" });
  });

  it("creates, lists, shows and updates inboxes through path parameters and JSON bodies", async () => {
    const { accountId, agentApiKey } = sandbox.info;
    const created = await call(`/api/v1/accounts/${accountId}/inboxes`, {
      method: "POST",
      key: agentApiKey,
      body: JSON.stringify({ name: "Support", channel: { type: "api" } }),
    });
    expect(created.status).toBe(200);
    const inbox = (await created.json()) as { id: number };
    const patched = await call(`/api/v1/accounts/${accountId}/inboxes/${inbox.id}`, {
      method: "PATCH",
      key: agentApiKey,
      body: JSON.stringify({ name: "Support 2" }),
    });
    expect(await patched.json()).toMatchObject({ id: inbox.id, name: "Support 2" });
    const list = (await (await call(`/api/v1/accounts/${accountId}/inboxes`, { key: agentApiKey })).json()) as { payload: { name: string }[] };
    expect(list.payload.map((i) => i.name)).toContain("Support 2");
  });

  it("answers 400 on malformed JSON and 404 on unknown paths", async () => {
    const { accountId, agentApiKey } = sandbox.info;
    const bad = await call(`/api/v1/accounts/${accountId}/inboxes`, { method: "POST", key: agentApiKey, body: "{oops" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: "Malformed JSON body", code: "bad_json" });
    const missing = await call(`/api/v1/nothing-here`);
    expect(missing.status).toBe(404);
    const apiDocs = await call(`/api-docs`);
    expect(apiDocs.status).toBe(404);
  });

  it("answers HEAD as GET without a body, and its own 404 as JSON in UTF-8", async () => {
    const { accountId, adminApiKey } = sandbox.info;
    const head = await call(`/api/v1/accounts/${accountId}/inboxes/`, { method: "HEAD", key: adminApiKey });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await head.text()).toBe("");
    const page = await call(`/checkout`, { method: "HEAD" });
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const site = await call(`/`, { method: "HEAD" });
    expect([site.status, site.headers.get("content-type"), await site.text()]).toEqual([200, "text/html; charset=utf-8", ""]);
    expect((await call(`/__proto__`)).status).toBe(404);
    const missing = await call(`/api/v1/nothing-here`, { method: "HEAD" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toBe("application/json; charset=utf-8");
  });

  it("reads a path that starts with // as a path, not as a host, and never resolves . or ..", async () => {
    const { accountId, adminApiKey } = sandbox.info;
    const port = new URL(sandbox.info.apiBase).port;
    // fetch would normalize the target; node:http sends it as written.
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path, headers: { api_access_token: adminApiKey }, timeout: 10_000 }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end();
      });
    expect(await status(`/api/v1/accounts/${accountId}`)).toBe(200);
    expect(await status(`//evil.example/api/v1/accounts/${accountId}`)).toBe(404);
    // Repeated slashes are one (Rails squeezes them): a base URL ending in "/" joined with "/api/...".
    expect(await status(`//api/v1/accounts/${accountId}//inboxes/`)).toBe(200);
    // Dot segments are not resolved into another route.
    expect(await status(`/api/v1/accounts/${accountId}/inboxes/..`)).toBe(404);
    expect(await status(`/api/v1/accounts/${accountId}/inboxes/%2E%2e`)).toBe(404);
    expect(await status(`/api/v1/accounts/${accountId}/nothing/../inboxes`)).toBe(404);
    expect(await status(`/api/v1/accounts/${accountId}/inboxes/.`)).toBe(404);
  });

  it("gives the documented bodies and a request id on the replies its gateway writes itself", async () => {
    const { accountId, agentApiKey } = sandbox.info;
    const missing = await call(`/api/v1/nothing-here`);
    expect(await missing.json()).toEqual({ error: "Resource could not be found", code: "not_found" });
    expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);

    // Over the gateway's own 10 MB: refused before any handler, still in the contract's shape.
    const huge = await call(`/api/v1/accounts/${accountId}/contacts`, { method: "POST", key: agentApiKey, body: JSON.stringify({ name: "x".repeat(11 * 1024 * 1024) }) });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toMatchObject({ error: "Payload too large", code: "too_large" });
    expect(huge.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
