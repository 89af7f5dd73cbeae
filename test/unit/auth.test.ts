import { describe, expect, it } from "vitest";
import { authenticate, type KeyLookup } from "../../shared/domain/auth.ts";
import { ForbiddenAccount, ForbiddenAction, Unauthorized } from "../../shared/domain/errors.ts";
import { newApiKey, sha256Hex } from "../../shared/domain/secrets.ts";
import type { Role } from "../../shared/routes.ts";

/** An in-memory KeyLookup (the domain's port), filled like the table would be. */
function store(entries: { key: string; userId: number; memberships: Record<number, Role> }[]): KeyLookup & { lookups: string[] } {
  const lookups: string[] = [];
  return {
    lookups,
    async findKeyByHash(hash) {
      lookups.push(hash);
      const e = entries.find((x) => sha256Hex(x.key) === hash);
      return e ? { userId: e.userId, keyId: `k${e.userId}` } : undefined;
    },
    async findRole(accountId, userId) {
      return entries.find((x) => x.userId === userId)?.memberships[accountId];
    },
  };
}

const admin = newApiKey().key;
const agent = newApiKey().key;
const s = store([
  { key: admin, userId: 1, memberships: { 10: "administrator" } },
  { key: agent, userId: 2, memberships: { 10: "agent" } },
]);

describe("authenticate", () => {
  it("looks keys up by SHA-256, never by the raw key", async () => {
    await authenticate(s, admin);
    expect(s.lookups.at(-1)).toBe(sha256Hex(admin));
    expect(s.lookups).not.toContain(admin);
  });

  it("resolves identity, account and role", async () => {
    await expect(authenticate(s, agent, { accountId: "10", needed: "agent" })).resolves.toEqual({ userId: 2, keyId: "k2", accountId: 10, role: "agent" });
  });

  it("rejects a missing, blank, unknown or absurdly long key", async () => {
    for (const t of [undefined, "", "   ", "cv_nope", "x".repeat(500)]) await expect(authenticate(s, t)).rejects.toBeInstanceOf(Unauthorized);
  });

  it("rejects a foreign or malformed account id", async () => {
    for (const id of ["11", "abc", "0", "-10", "10.5", undefined]) {
      await expect(authenticate(s, admin, { accountId: id, needed: "agent" })).rejects.toBeInstanceOf(ForbiddenAccount);
    }
  });

  it("rejects a role that is too low, allows a higher one", async () => {
    await expect(authenticate(s, agent, { accountId: "10", needed: "administrator" })).rejects.toBeInstanceOf(ForbiddenAction);
    await expect(authenticate(s, admin, { accountId: "10", needed: "agent" })).resolves.toMatchObject({ role: "administrator" });
  });
});
