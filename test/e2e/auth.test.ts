/**
 * Authentication in the sandbox over real HTTP: sign in -> use the key -> revoke -> 401;
 * password recovery -> the .eml holds the link -> reset -> old password and keys fail, the new
 * password works; an unknown e-mail gets the same reply and the same hashing work.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { hashingStats } from "../../shared/domain/passwords.ts";

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startTestSandbox("e2e-auth");
});

afterAll(async () => {
  await sandbox?.stop();
});

const call = (path: string, init: { method?: string; key?: string; body?: unknown } = {}) =>
  fetch(`${sandbox.info.apiBase.replace("localhost", "127.0.0.1")}${path}`, {
    method: init.method ?? "GET",
    headers: { "content-type": "application/json", ...(init.key ? { api_access_token: init.key } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    signal: AbortSignal.timeout(10_000),
  });

const signIn = (email: string, password: string) => call("/auth/sign_in", { method: "POST", body: { email, password } });
const mails = async () => (await readdir(sandbox.mailDir)).filter((f) => f.endsWith(".eml")).sort();

describe("sign in, use, revoke", () => {
  it("signs the seeded admin in, uses the returned key, revokes it, and the next request is 401", async () => {
    const { accountId, adminEmail, password } = sandbox.info;

    const login = await signIn(adminEmail, password);
    expect(login.status).toBe(200);
    const { data } = (await login.json()) as { data: { access_token: string; account_id: number; role: string } };
    expect(data).toMatchObject({ account_id: accountId, role: "administrator" });

    const account = await call(`/api/v1/accounts/${accountId}`, { key: data.access_token });
    expect(account.status).toBe(200);
    const list = (await (await call("/api/v1/profile/access_tokens", { key: data.access_token })).json()) as { payload: { id: string; prefix: string; name: string }[] };
    const mine = list.payload.find((t) => data.access_token.startsWith(t.prefix) && t.name === "session");
    expect(mine).toBeDefined();

    const revoked = await call(`/api/v1/profile/access_tokens/${mine!.id}`, { method: "DELETE", key: sandbox.info.adminApiKey });
    expect(revoked.status).toBe(200);
    const after = await call(`/api/v1/accounts/${accountId}`, { key: data.access_token });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ error: "Invalid Access Token", code: "unauthorized" });
  });

  it("answers a wrong password and an unknown e-mail alike, with the same hashing work", async () => {
    const before = hashingStats.calls;
    const wrong = await signIn(sandbox.info.agentEmail, "not the password");
    const mid = hashingStats.calls;
    const unknown = await signIn("ghost@example.com", "not the password");
    const end = hashingStats.calls;

    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toBe(await wrong.text());
    expect(mid - before).toBe(1);
    expect(end - mid).toBe(1);
  });
});

describe("password recovery", () => {
  it("mails a link, resets the password, and old password and old keys stop working", async () => {
    const { accountId, agentEmail, agentApiKey, password } = sandbox.info;
    const session = ((await (await signIn(agentEmail, password)).json()) as { data: { access_token: string } }).data.access_token;
    const before = new Set(await mails());

    const asked = await call("/auth/password", { method: "POST", body: { email: agentEmail } });
    expect(asked.status).toBe(200);
    const added = (await mails()).filter((f) => !before.has(f));
    expect(added).toHaveLength(1);
    const eml = await readFile(join(sandbox.mailDir, added[0]!), "utf8");
    expect(eml).toContain(`To: ${agentEmail}`);
    const token = /[?&]reset_password_token=([A-Za-z0-9_-]+)/.exec(eml)?.[1];
    expect(token).toBeDefined();

    const done = await call("/auth/password", { method: "PUT", body: { reset_password_token: token, password: "a fresh password", password_confirmation: "a fresh password" } });
    expect(done.status).toBe(200);

    for (const key of [agentApiKey, session]) expect((await call(`/api/v1/accounts/${accountId}`, { key })).status).toBe(401);
    expect((await signIn(agentEmail, password)).status).toBe(401);
    const fresh = await signIn(agentEmail, "a fresh password");
    expect(fresh.status).toBe(200);
    const again = await call("/auth/password", { method: "PUT", body: { reset_password_token: token, password: "third password", password_confirmation: "third password" } });
    expect(again.status).toBe(422);
  });

  it("gives an unknown e-mail the same reply and writes no mail", async () => {
    const known = await call("/auth/password", { method: "POST", body: { email: sandbox.info.adminEmail } });
    const before = await mails();

    const unknown = await call("/auth/password", { method: "POST", body: { email: "ghost@example.com" } });

    expect(unknown.status).toBe(known.status);
    expect(await unknown.text()).toBe(await known.text());
    expect(await mails()).toEqual(before);
  });
});
