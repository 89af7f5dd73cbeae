/** POST /auth/sign_in through the real handler against DynamoDB Local. */
import { beforeAll, describe, expect, it } from "vitest";
import { addMember, createAccount } from "../../shared/db/accounts-repo.ts";
import { credentialsRepo } from "../../shared/db/credentials-repo.ts";
import { getItem } from "../../shared/db/items.ts";
import { keys } from "../../shared/db/keys.ts";
import { hashingStats } from "../../shared/domain/passwords.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { invoke } from "../support/api.ts";
import { makeAccount } from "../support/fixtures.ts";
import { makeUser, type UserFixture } from "../support/users.ts";

const INVALID = { success: false, errors: ["Invalid login credentials. Please try again."] };

let u: UserFixture;

beforeAll(async () => {
  u = await makeUser({ password: "correct horse battery" });
});

describe("POST /auth/sign_in", () => {
  it("returns the documented body with a new key that works on the user's account", async () => {
    const res = await invoke("auth.sign_in", { body: { email: u.email, password: u.password } });

    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      data: {
        id: u.userId,
        name: u.name,
        email: u.email,
        account_id: u.accountId,
        role: "administrator",
        access_token: expect.stringMatching(new RegExp(`^cv_u${u.userId}_[A-Za-z0-9_-]{43}$`)),
        provider: "email",
        uid: u.email,
        accounts: [{ id: u.accountId, name: expect.any(String), role: "administrator" }],
      },
    });
    const account = await invoke("accounts.show", { params: { account_id: u.accountId }, key: res.json.data.access_token });
    expect(account.status).toBe(200);
  });

  it("stores the session key as a SHA-256 hash named 'session'", async () => {
    const res = await invoke("auth.sign_in", { body: { email: u.email, password: u.password } });

    const token: string = res.json.data.access_token;
    const lookup = await getItem(keys.apiKeyByHash(sha256Hex(token)));
    expect(lookup?.["userId"]).toBe(u.userId);
    const listing = await getItem(keys.userApiKey(u.userId, String(lookup?.["keyId"])));
    expect(listing).toMatchObject({ name: "session", hash: sha256Hex(token), prefix: token.slice(0, 10) });
    expect(JSON.stringify([lookup, listing])).not.toContain(token);
  });

  it("matches the e-mail case-insensitively and trimmed, and issues a new key each time", async () => {
    const first = await invoke("auth.sign_in", { body: { email: `  ${u.email.toUpperCase()} `, password: u.password } });
    const second = await invoke("auth.sign_in", { body: { email: u.email, password: u.password } });

    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(first.json.data.access_token).not.toBe(second.json.data.access_token);
  });

  it("lists every account of the user, lowest id first, and uses the first as account_id", async () => {
    const v = await makeUser({ role: "agent" });
    const other = await createAccount("Second Co", Math.floor(Date.now() / 1000));
    await addMember(other, v.userId, "administrator", 0);

    const res = await invoke("auth.sign_in", { body: { email: v.email, password: v.password } });

    expect(res.json.data.accounts).toEqual([
      { id: v.accountId, name: expect.any(String), role: "agent" },
      { id: other, name: "Second Co", role: "administrator" },
    ]);
    expect(res.json.data).toMatchObject({ account_id: v.accountId, role: "agent" });
  });

  it("answers a wrong password with the documented 401 body", async () => {
    const res = await invoke("auth.sign_in", { body: { email: u.email, password: "wrong password" } });

    expect(res.status).toBe(401);
    expect(res.json).toEqual(INVALID);
  });

  it("answers an unknown e-mail with the same 401 and the same hashing work as a known one", async () => {
    const before = hashingStats.calls;
    const known = await invoke("auth.sign_in", { body: { email: u.email, password: "wrong password" } });
    const afterKnown = hashingStats.calls;
    const unknown = await invoke("auth.sign_in", { body: { email: "nobody-here@example.com", password: "wrong password" } });
    const afterUnknown = hashingStats.calls;

    expect(unknown.status).toBe(known.status);
    expect(unknown.text).toBe(known.text);
    expect(afterKnown - before).toBe(1);
    expect(afterUnknown - afterKnown).toBe(1);
  });

  it("refuses a user without a password (API-only), after the same hashing work", async () => {
    const a = await makeAccount();
    const before = hashingStats.calls;

    const res = await invoke("auth.sign_in", { body: { email: a.adminEmail, password: "anything at all" } });

    expect(res.status).toBe(401);
    expect(res.json).toEqual(INVALID);
    expect(hashingStats.calls - before).toBe(1);
  });

  it("answers missing fields with 422 naming them", async () => {
    const res = await invoke("auth.sign_in", { body: { email: u.email } });

    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["password"]);
  });

  it("issues no key once the password changed after it was checked (a reset raced the login)", async () => {
    const v = await makeUser();
    const user = await credentialsRepo.findUserByEmail(v.email);
    const stale = { ...user!, pwVersion: user!.pwVersion - 1 };

    const key = await credentialsRepo.issueKey(stale, "session", 0);

    expect(key).toBeUndefined();
    await expect(credentialsRepo.listKeys(v.userId, 0)).resolves.toEqual([]);
  });
});
