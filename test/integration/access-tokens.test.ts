/** /api/v1/profile/access_tokens: list, create, revoke, last_used_at, against DynamoDB Local. */
import { beforeAll, describe, expect, it } from "vitest";
import { accountsRepo } from "../../shared/db/accounts-repo.ts";
import { credentialsRepo } from "../../shared/db/credentials-repo.ts";
import { getItem } from "../../shared/db/items.ts";
import { keys } from "../../shared/db/keys.ts";
import { authenticate, KEY_TOUCH_INTERVAL_SECONDS } from "../../shared/domain/auth.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

let a: AccountFixture;

beforeAll(async () => {
  a = await makeAccount("Keys Co");
});

const create = (key: string, body: unknown = {}) => invoke("access_tokens.create", { key, body });
const list = (key: string, query?: Record<string, string>) => invoke("access_tokens.list", { key, ...(query ? { query } : {}) });
const revoke = (key: string, id: string) => invoke("access_tokens.revoke", { key, params: { token_id: id } });

describe("POST /api/v1/profile/access_tokens", () => {
  it("returns the full key once, with its id, name and prefix", async () => {
    const res = await create(a.agentKey, { name: "CRM sync" });

    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{16}$/),
      name: "CRM sync",
      prefix: res.json.access_token.slice(0, 10),
      created_at: expect.any(Number),
      last_used_at: null,
      access_token: expect.stringMatching(/^cv_/),
    });
    const again = await invoke("accounts.show", { params: { account_id: a.accountId }, key: res.json.access_token });
    expect(again.status).toBe(200);
  });

  it("names a key 'api' by default and rejects an empty name", async () => {
    const unnamed = await create(a.agentKey);
    const empty = await create(a.agentKey, { name: "  " });

    expect(unnamed.json.name).toBe("api");
    expect(empty.status).toBe(422);
    expect(empty.json.attributes).toEqual(["name"]);
  });
});

describe("GET /api/v1/profile/access_tokens", () => {
  it("lists the caller's keys by prefix only, never the key or its hash", async () => {
    const made = await create(a.adminKey, { name: "listed" });

    const res = await list(a.adminKey);

    expect(res.status).toBe(200);
    const row = res.json.payload.find((t: { id: string }) => t.id === made.json.id);
    expect(row).toEqual({ id: made.json.id, name: "listed", prefix: made.json.prefix, created_at: made.json.created_at, last_used_at: null });
    expect(res.text).not.toContain(made.json.access_token);
    expect(res.text).not.toContain(sha256Hex(made.json.access_token));
    expect(res.json.meta).toMatchObject({ count: res.json.payload.length, current_page: 1, per: 25, has_more: false, next_cursor: null });
  });

  it("never shows another user's keys", async () => {
    const mine = await create(a.adminKey, { name: "admin only" });

    const res = await list(a.agentKey);

    expect(res.json.payload.map((t: { id: string }) => t.id)).not.toContain(mine.json.id);
  });

  it("pages with page/per and with the cursor, every key once", async () => {
    const b = await makeAccount();
    for (const name of ["k1", "k2", "k3"]) await create(b.adminKey, { name });

    const first = await list(b.adminKey, { per: "2" });
    const byCursor = await list(b.adminKey, { per: "2", cursor: first.json.meta.next_cursor });
    const byPage = await list(b.adminKey, { per: "2", page: "2" });

    expect(first.json.payload).toHaveLength(2);
    expect(first.json.meta).toMatchObject({ count: 4, per: 2, has_more: true });
    expect(byCursor.json.payload).toEqual(byPage.json.payload);
    expect(byPage.json.meta).toMatchObject({ current_page: 2, has_more: false, next_cursor: null });
    const all = [...first.json.payload, ...byPage.json.payload].map((t: { id: string }) => t.id);
    expect(new Set(all).size).toBe(4);
  });

  it("clamps per, and answers a non-integer per or a bad cursor with 422", async () => {
    const clamped = await list(a.adminKey, { per: "1000" });
    const bad = await list(a.adminKey, { per: "ten" });
    const badCursor = await list(a.adminKey, { cursor: "not-a-cursor" });
    const longPage = await list(a.adminKey, { page: "9".repeat(20), per: "-".concat("9".repeat(20)) });

    expect(clamped.json.meta.per).toBe(100);
    expect(longPage.status).toBe(200);
    expect(longPage.json.meta).toMatchObject({ per: 1, has_more: false });
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(["per"]);
    expect(badCursor.status).toBe(422);
    expect(badCursor.json.attributes).toEqual(["cursor"]);
  });
});

describe("DELETE /api/v1/profile/access_tokens/{token_id}", () => {
  it("revokes a key: the very next request with it is 401, in the same warm handler", async () => {
    const made = await create(a.adminKey, { name: "short-lived" });
    const warm = await invoke("accounts.show", { params: { account_id: a.accountId }, key: made.json.access_token });

    const res = await revoke(a.adminKey, made.json.id);
    const next = await invoke("accounts.show", { params: { account_id: a.accountId }, key: made.json.access_token });

    expect(warm.status).toBe(200);
    expect(res.status).toBe(200);
    expect(next.status).toBe(401);
    expect(next.json).toEqual({ error: "Invalid Access Token", code: "unauthorized" });
    expect(await getItem(keys.apiKeyByHash(sha256Hex(made.json.access_token)))).toBeUndefined();
    expect(await getItem(keys.userApiKey(a.adminUserId, made.json.id))).toBeUndefined();
  });

  it("lets a key revoke itself", async () => {
    const made = await create(a.adminKey, { name: "self" });

    const res = await revoke(made.json.access_token, made.json.id);
    const next = await list(made.json.access_token);

    expect(res.status).toBe(200);
    expect(next.status).toBe(401);
  });

  it("answers 404 for another user's key, an unknown id and a malformed id, and leaves the key working", async () => {
    const theirs = await create(a.agentKey, { name: "agent's" });

    const other = await revoke(a.adminKey, theirs.json.id);
    const unknown = await revoke(a.adminKey, "0123456789abcdef");
    const malformed = await revoke(a.adminKey, "../../x");

    for (const res of [other, unknown, malformed]) {
      expect(res.status).toBe(404);
      expect(res.json).toEqual({ error: "Resource could not be found", code: "not_found" });
    }
    expect((await list(theirs.json.access_token)).status).toBe(200);
  });
});

describe("last_used_at", () => {
  it("is set by an authenticated request and shown in the list", async () => {
    const made = await create(a.adminKey, { name: "used" });

    await invoke("accounts.show", { params: { account_id: a.accountId }, key: made.json.access_token });
    const res = await list(a.adminKey);

    const row = res.json.payload.find((t: { id: string }) => t.id === made.json.id);
    expect(row.last_used_at).toBeGreaterThanOrEqual(made.json.created_at);
  });

  it("is written at most once per interval per key, and never moves back", async () => {
    const made = await create(a.adminKey, { name: "interval" });
    const t0 = new Date("2031-01-01T00:00:00Z");
    const at = (s: number) => new Date(t0.getTime() + s * 1000);
    const lastUsed = async () => (await credentialsRepo.listKeys(a.adminUserId, Math.floor(t0.getTime() / 1000))).find((k) => k.id === made.json.id)?.last_used_at;

    await authenticate(accountsRepo, made.json.access_token, undefined, at(0));
    await authenticate(accountsRepo, made.json.access_token, undefined, at(KEY_TOUCH_INTERVAL_SECONDS - 1));
    const within = await lastUsed();
    await authenticate(accountsRepo, made.json.access_token, undefined, at(KEY_TOUCH_INTERVAL_SECONDS));
    const after = await lastUsed();
    await accountsRepo.touchKey!({ userId: a.adminUserId, keyId: made.json.id }, Math.floor(t0.getTime() / 1000) - 5);
    const notBack = await lastUsed();

    const base = Math.floor(t0.getTime() / 1000);
    expect(within).toBe(base);
    expect(after).toBe(base + KEY_TOUCH_INTERVAL_SECONDS);
    expect(notBack).toBe(base + KEY_TOUCH_INTERVAL_SECONDS);
  });
});
