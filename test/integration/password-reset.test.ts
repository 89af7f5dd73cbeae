/**
 * Password recovery through the real handlers: POST writes an .eml (file mailer, MAIL_DIR),
 * PUT checks the token (hashed, 1 h, single use) and revokes every key of the user.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { issueKey } from "../../shared/db/accounts-repo.ts";
import { credentialsRepo } from "../../shared/db/credentials-repo.ts";
import { getItem } from "../../shared/db/items.ts";
import { keys } from "../../shared/db/keys.ts";
import { RESET_TOKEN_TTL_SECONDS, resetPassword } from "../../shared/domain/password-reset.ts";
import { hashingStats } from "../../shared/domain/passwords.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { invoke } from "../support/api.ts";
import { makeUser, type UserFixture } from "../support/users.ts";

let mailDir = "";

beforeAll(async () => {
  mailDir = await mkdtemp(join(tmpdir(), "conversa-mail-test-"));
  process.env["MAIL_DIR"] = mailDir;
  process.env["PASSWORD_RESET_URL"] = "https://app.test/auth/password/edit";
  // The reply floor is unit-tested (test/unit/password-pacing.test.ts); here it would only slow the file.
  process.env["PASSWORD_RESET_MIN_REPLY_MS"] = "0";
  resetConfig();
});

afterAll(async () => {
  await rm(mailDir, { recursive: true, force: true });
});

const mailFiles = async () => (await readdir(mailDir)).filter((f) => f.endsWith(".eml")).sort();

/** Requests a reset for `email` and returns the token from the new mail's link. */
async function requestToken(email: string): Promise<{ token: string; mail: string }> {
  const before = new Set(await mailFiles());
  const res = await invoke("auth.password_request", { body: { email } });
  expect(res.status).toBe(200);
  const added = (await mailFiles()).filter((f) => !before.has(f));
  expect(added).toHaveLength(1);
  const mail = await readFile(join(mailDir, added[0]!), "utf8");
  const link = /https:\/\/app\.test\/auth\/password\/edit\?reset_password_token=([A-Za-z0-9_-]+)/.exec(mail);
  expect(link).not.toBeNull();
  return { token: link![1]!, mail };
}

const reset = (token: string, password: string, confirmation = password) =>
  invoke("auth.password_reset", { body: { reset_password_token: token, password, password_confirmation: confirmation } });
const signIn = (email: string, password: string) => invoke("auth.sign_in", { body: { email, password } });

describe("POST /auth/password", () => {
  let u: UserFixture;
  beforeAll(async () => {
    u = await makeUser();
  });

  it("mails a link with a 256-bit token to a known e-mail, stores only its hash with a 1-hour life", async () => {
    const started = Math.floor(Date.now() / 1000);

    const { token, mail } = await requestToken(u.email.toUpperCase());

    expect(Buffer.from(token, "base64url")).toHaveLength(32);
    expect(mail).toMatch(/^From: no-reply@example\.com\r\n/);
    expect(mail).toContain(`To: ${u.email}\r\n`);
    expect(mail).toContain("Subject: Reset password instructions\r\n");
    const stored = await getItem(keys.passwordReset(sha256Hex(token)));
    expect(stored?.["userId"]).toBe(u.userId);
    expect(Number(stored?.["expiresAt"]) - started).toBeGreaterThanOrEqual(RESET_TOKEN_TTL_SECONDS);
    expect(Number(stored?.["expiresAt"]) - started).toBeLessThanOrEqual(RESET_TOKEN_TTL_SECONDS + 5);
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("gives an unknown e-mail the very same reply, and sends nothing", async () => {
    const known = await invoke("auth.password_request", { body: { email: u.email } });
    const filesBefore = await mailFiles();

    const unknown = await invoke("auth.password_request", { body: { email: "no-such-user@example.com" } });

    expect(unknown.status).toBe(200);
    expect(unknown.text).toBe(known.text);
    expect(unknown.json).toEqual({ message: expect.stringContaining("reset your password") });
    expect(await mailFiles()).toEqual(filesBefore);
  });

  it("answers a missing e-mail with 422", async () => {
    const res = await invoke("auth.password_request", { body: {} });

    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["email"]);
  });
});

describe("PUT /auth/password", () => {
  it("sets the new password, kills the token and every existing key of the user", async () => {
    const u = await makeUser();
    const oldSession = (await signIn(u.email, u.password)).json.data.access_token as string;
    const apiKey = await issueKey(u.userId, "integration", 0);
    const { token } = await requestToken(u.email);

    const res = await reset(token, "brand new password");

    expect(res.status).toBe(200);
    expect(res.json).toEqual({ message: expect.any(String) });
    for (const key of [oldSession, apiKey]) {
      const call = await invoke("access_tokens.list", { key });
      expect(call.status).toBe(401);
    }
    expect((await signIn(u.email, u.password)).status).toBe(401);
    const fresh = await signIn(u.email, "brand new password");
    expect(fresh.status).toBe(200);
    expect((await invoke("access_tokens.list", { key: fresh.json.data.access_token })).status).toBe(200);
    expect(await getItem(keys.passwordReset(sha256Hex(token)))).toBeUndefined();
  });

  it("refuses a used token with 422", async () => {
    const u = await makeUser();
    const { token } = await requestToken(u.email);
    await reset(token, "first new password");

    const again = await reset(token, "second new password");

    expect(again.status).toBe(422);
    expect(again.json).toMatchObject({ attributes: ["reset_password_token"], errors: [{ field: "reset_password_token", code: "invalid" }] });
    expect((await signIn(u.email, "first new password")).status).toBe(200);
  });

  it("refuses an older token once another reset went through", async () => {
    const u = await makeUser();
    const older = await requestToken(u.email);
    const newer = await requestToken(u.email);
    expect((await reset(newer.token, "the newer password")).status).toBe(200);

    const res = await reset(older.token, "the older password");

    expect(res.status).toBe(422);
    expect((await signIn(u.email, "the newer password")).status).toBe(200);
  });

  it("refuses an expired token (its life is checked at read time, whatever the TTL did)", async () => {
    const u = await makeUser();
    const { token } = await requestToken(u.email);
    const later = new Date(Date.now() + (RESET_TOKEN_TTL_SECONDS + 1) * 1000);

    await expect(resetPassword(credentialsRepo, { reset_password_token: token, password: "too late now", password_confirmation: "too late now" }, later)).rejects.toMatchObject({
      status: 422,
      errors: [{ field: "reset_password_token", code: "expired" }],
    });
    expect((await signIn(u.email, u.password)).status).toBe(200);
  });

  it("refuses an unknown token, a short password and a mismatched confirmation, naming the field", async () => {
    const unknown = await reset("not-a-token", "long enough pw");
    const short = await reset("whatever", "short");
    const mismatch = await reset("whatever", "long enough pw", "another one!!");
    const blank = await reset("whatever", " ".repeat(10));

    expect(unknown.status).toBe(422);
    expect(unknown.json.attributes).toEqual(["reset_password_token"]);
    expect(short.status).toBe(422);
    expect(short.json.errors).toEqual([{ field: "password", code: "too_short", message: "is too short (minimum is 8 characters)" }]);
    expect(mismatch.status).toBe(422);
    expect(mismatch.json.errors).toEqual([{ field: "password_confirmation", code: "confirmation", message: "doesn't match Password" }]);
    expect(blank.status).toBe(422);
    expect(blank.json.errors).toEqual([{ field: "password", code: "blank", message: "can't be blank" }]);
  });

  it("revokes more keys than one transaction holds (two items per key, 100 per transaction)", { timeout: 90_000 }, async () => {
    const u = await makeUser();
    const many = await Promise.all(Array.from({ length: 60 }, (_, i) => issueKey(u.userId, `k${i}`, 0)));
    const { token } = await requestToken(u.email);
    const hashesBefore = hashingStats.calls;

    const res = await reset(token, "after many keys");

    expect(res.status).toBe(200);
    expect(hashingStats.calls - hashesBefore).toBe(1);
    await expect(credentialsRepo.listKeys(u.userId, 0)).resolves.toEqual([]);
    for (const key of [many[0]!, many[59]!]) expect(await getItem(keys.apiKeyByHash(sha256Hex(key)))).toBeUndefined();
  });
});

describe("when the mail cannot be sent", () => {
  it("still gives the same reply (no e-mail enumeration through errors)", async () => {
    const u = await makeUser();
    const blocker = join(mailDir, "not-a-directory");
    await writeFile(blocker, "");
    process.env["MAIL_DIR"] = join(blocker, "mail");
    resetConfig();
    try {
      const known = await invoke("auth.password_request", { body: { email: u.email } });
      const unknown = await invoke("auth.password_request", { body: { email: "nobody-else@example.com" } });

      expect(known.status).toBe(200);
      expect(known.text).toBe(unknown.text);
    } finally {
      process.env["MAIL_DIR"] = mailDir;
      resetConfig();
    }
  });
});
