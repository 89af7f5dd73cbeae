import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { getItem } from "../../shared/db/items.ts";
import { keys } from "../../shared/db/keys.ts";

let a: AccountFixture;

beforeAll(async () => {
  a = await makeAccount("Acme");
});

describe("GET /api/v1/accounts/{account_id}", () => {
  it("returns the account for an administrator and an agent", async () => {
    for (const key of [a.adminKey, a.agentKey]) {
      const res = await invoke("accounts.show", { params: { account_id: a.accountId }, key });
      expect(res.status).toBe(200);
      expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(res.json).toMatchObject({ id: a.accountId, name: "Acme", locale: "en", status: "active" });
      expect(res.json.pk).toBeUndefined();
    }
  });

  it("stores keys only as SHA-256 hashes", async () => {
    const item = await getItem(keys.apiKeyByHash(sha256Hex(a.adminKey)));
    expect(item?.["userId"]).toBe(a.adminUserId);
    expect(JSON.stringify(item)).not.toContain(a.adminKey);
  });

  it("answers forbidden_account (not 404) for an account id the key has no membership in", async () => {
    const res = await invoke("accounts.show", { params: { account_id: 999999 }, key: a.adminKey });
    expect(res.status).toBe(401);
    expect(res.json.code).toBe("forbidden_account");
  });
});
