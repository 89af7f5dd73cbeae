import { beforeAll, describe, expect, it } from "vitest";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { randomToken, sha256Hex } from "../../shared/domain/secrets.ts";
import { getItem } from "../../shared/db/items.ts";
import { keys } from "../../shared/db/keys.ts";
import { mainTableName } from "../../shared/db/client.ts";
import { recordCalls } from "../support/dynamo-calls.ts";
import { apiKeyItems, putRaw } from "../../shared/db/accounts-repo.ts";

/** The main-table calls `fn` makes, as `Command sk` or `Command sk-kind+sk-kind` (throttle-table calls left out). */
async function mainTableCalls(fn: () => Promise<unknown>): Promise<string[]> {
  const table = mainTableName();
  return (await recordCalls(fn)).flatMap(({ command, input }) => {
    if (input["TableName"] === table) return [`${command} ${input["Key"]?.sk ?? ""}`.trim()];
    const batch = input["RequestItems"]?.[table] as { Keys: { sk: string }[] } | undefined;
    return batch ? [`${command} ${batch.Keys.map((k) => k.sk.split("#")[0]).join("+")}`] : [];
  });
}

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

  it("authenticates a key with one read: the key item and the membership in one BatchGetItem", async () => {
    const calls = await mainTableCalls(() => invoke("accounts.show", { params: { account_id: a.accountId }, key: a.agentKey }));
    expect(calls).toEqual(["BatchGetItemCommand APIKEY+MEMBER", "GetItemCommand ACCOUNT"]);
  });

  it("still accepts a key of the earlier format (no user id in it), reading key then membership", async () => {
    const legacy = `cv_${randomToken(32)}`;
    const { items } = apiKeyItems(a.agentUserId, "legacy", 1_700_000_000, { key: legacy, hash: sha256Hex(legacy), prefix: legacy.slice(0, 10) });
    for (const item of items) await putRaw(item);
    let status = 0;
    const calls = await mainTableCalls(async () => {
      status = (await invoke("accounts.show", { params: { account_id: a.accountId }, key: legacy })).status;
    });
    expect(status).toBe(200);
    expect(calls).toEqual(["GetItemCommand APIKEY", `GetItemCommand MEMBER#${String(a.agentUserId).padStart(10, "0")}`, "GetItemCommand ACCOUNT"]);
  });
});
