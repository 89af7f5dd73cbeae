/**
 * API-key authentication: `api_access_token` -> Identity. Keys are looked up by SHA-256;
 * account routes also need a membership with a sufficient role (API.md, 401 rows).
 */
import type { Role } from "../routes.ts";
import { ForbiddenAccount, ForbiddenAction, Unauthorized } from "./errors.ts";
import { roleAllows, type Identity } from "./identity.ts";
import { sha256Hex } from "./secrets.ts";

export interface KeyRecord {
  readonly userId: number;
  readonly keyId: string;
}

export interface KeyLookup {
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  findRole(accountId: number, userId: number): Promise<Role | undefined>;
}

export interface AccountAccess {
  /** Raw `{account_id}` path parameter. */
  readonly accountId: string | undefined;
  readonly needed: Role;
}

const MAX_KEY_LENGTH = 200;

export async function authenticate(
  store: KeyLookup,
  token: string | undefined,
  access?: AccountAccess,
): Promise<Identity> {
  const presented = token?.trim();
  if (!presented || presented.length > MAX_KEY_LENGTH) throw new Unauthorized();
  const key = await store.findKeyByHash(sha256Hex(presented));
  if (!key) throw new Unauthorized();
  if (!access) return { userId: key.userId, keyId: key.keyId };

  const accountId = Number(access.accountId);
  if (!Number.isSafeInteger(accountId) || accountId <= 0) throw new ForbiddenAccount();
  const role = await store.findRole(accountId, key.userId);
  if (!role) throw new ForbiddenAccount();
  if (!roleAllows(role, access.needed)) throw new ForbiddenAction();
  return { userId: key.userId, keyId: key.keyId, accountId, role };
}
