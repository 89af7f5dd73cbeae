import { describe, expect, it } from "vitest";
import { authenticate, type KeyLookup } from "../../shared/domain/auth.ts";
import { ForbiddenAccount, ForbiddenAction, NotFound, Unauthorized } from "../../shared/errors.ts";
import { keyUserHint, newApiKey, randomToken, sha256Hex } from "../../shared/domain/secrets.ts";
import type { Role } from "../../shared/domain/identity.ts";

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

const admin = newApiKey(1).key;
const agent = newApiKey(2).key;
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

  it("rejects a foreign account id (401) and a non-canonical one (404: it names no account)", async () => {
    await expect(authenticate(s, admin, { accountId: "11", needed: "agent" })).rejects.toBeInstanceOf(ForbiddenAccount);
    for (const id of ["abc", "0", "-10", "10.5", "10.0", "010", "1e1", "+10", " 10", "10 ", "0x0a", "", "99999999999999999", undefined]) {
      await expect(authenticate(s, admin, { accountId: id, needed: "agent" }), String(id)).rejects.toBeInstanceOf(NotFound);
    }
  });

  it("rejects a role that is too low, allows a higher one", async () => {
    await expect(authenticate(s, agent, { accountId: "10", needed: "administrator" })).rejects.toBeInstanceOf(ForbiddenAction);
    await expect(authenticate(s, admin, { accountId: "10", needed: "agent" })).resolves.toMatchObject({ role: "administrator" });
  });
});

describe("authenticate: a key that names its user", () => {
  /** The store as accounts-repo is: key items by hash (with their user), memberships by (account, user). */
  function counted(keyItems: Record<string, number>, memberships: Record<string, Role>) {
    const reads: string[] = [];
    const store: KeyLookup = {
      async findKeyByHash(hash) {
        reads.push("key");
        const userId = keyItems[hash];
        return userId === undefined ? undefined : { userId, keyId: `k${userId}` };
      },
      async findRole(accountId, userId) {
        reads.push("role");
        return memberships[`${accountId}/${userId}`];
      },
      async findKeyAndRole(hash, accountId, userId) {
        reads.push("key+role");
        const owner = keyItems[hash];
        return { key: owner === undefined ? undefined : { userId: owner, keyId: `k${owner}` }, role: memberships[`${accountId}/${userId}`] };
      },
    };
    return { store, reads };
  }

  it("parses the user id of the current format only", () => {
    expect(keyUserHint(newApiKey(42).key)).toBe(42);
    expect(keyUserHint(`cv_${randomToken(32)}`)).toBeUndefined();
    expect(keyUserHint(`cv_u0_${randomToken(32)}`)).toBeUndefined();
    expect(keyUserHint(`cv_u12_${randomToken(8)}`)).toBeUndefined();
    expect(keyUserHint(`cv_u1234567890123456_${randomToken(32)}`)).toBeUndefined();
  });

  it("reads the key and the membership in one read", async () => {
    const key = newApiKey(5).key;
    const { store, reads } = counted({ [sha256Hex(key)]: 5 }, { "10/5": "administrator" });
    await expect(authenticate(store, key, { accountId: "10", needed: "administrator" })).resolves.toEqual({ userId: 5, keyId: "k5", accountId: 10, role: "administrator" });
    expect(reads).toEqual(["key+role"]);
  });

  it("trusts the key item, not the name: a key naming another user gets its owner's role", async () => {
    // A key whose text names user 9 (an administrator) but whose item belongs to user 5 (an agent).
    const key = newApiKey(9).key;
    const { store, reads } = counted({ [sha256Hex(key)]: 5 }, { "10/9": "administrator", "10/5": "agent" });
    await expect(authenticate(store, key, { accountId: "10", needed: "administrator" })).rejects.toBeInstanceOf(ForbiddenAction);
    await expect(authenticate(store, key, { accountId: "10", needed: "agent" })).resolves.toMatchObject({ userId: 5, role: "agent" });
    expect(reads).toEqual(["key+role", "role", "key+role", "role"]);
  });

  it("keeps keys of the earlier format working, in two reads", async () => {
    const legacy = `cv_${randomToken(32)}`;
    const { store, reads } = counted({ [sha256Hex(legacy)]: 5 }, { "10/5": "agent" });
    await expect(authenticate(store, legacy, { accountId: "10", needed: "agent" })).resolves.toMatchObject({ userId: 5, role: "agent" });
    expect(reads).toEqual(["key", "role"]);
  });

  it("rejects an unknown key that names a user, and a member of another account", async () => {
    const { store } = counted({}, { "10/5": "administrator" });
    await expect(authenticate(store, newApiKey(5).key, { accountId: "10", needed: "agent" })).rejects.toBeInstanceOf(Unauthorized);
    const key = newApiKey(5).key;
    const other = counted({ [sha256Hex(key)]: 5 }, { "10/5": "administrator" });
    await expect(authenticate(other.store, key, { accountId: "11", needed: "agent" })).rejects.toBeInstanceOf(ForbiddenAccount);
  });
});
