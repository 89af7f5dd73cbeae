/**
 * API-key authentication: `api_access_token` -> Identity. Keys are looked up by SHA-256;
 * account routes also need a membership with a sufficient role (else 401).
 */
import { ForbiddenAccount, ForbiddenAction, NotFound, Unauthorized } from "../errors.ts";
import { roleAllows, type Identity, type Role } from "./identity.ts";
import { keyUserHint, sha256Hex } from "./secrets.ts";

export interface KeyRecord {
  readonly userId: number;
  readonly keyId: string;
}

export interface KeyLookup {
  findKeyByHash(hash: string): Promise<KeyRecord | undefined>;
  findRole(accountId: number, userId: number): Promise<Role | undefined>;
  /** The key by hash and `userId`'s role in the account, in one read (the store's choice how). */
  findKeyAndRole?(hash: string, accountId: number, userId: number): Promise<{ key?: KeyRecord | undefined; role?: Role | undefined }>;
  /** Records a use of the key (`last_used_at`); best effort. */
  touchKey?(key: KeyRecord, nowSec: number): Promise<void>;
}

/** `last_used_at` is written at most once per this many seconds per key and container. */
export const KEY_TOUCH_INTERVAL_SECONDS = 60;

export interface AccountAccess {
  /** Raw `{account_id}` path parameter. */
  readonly accountId: string | undefined;
  readonly needed: Role;
}

const MAX_KEY_LENGTH = 200;

/**
 * A path id as the canonical decimal of a positive safe integer (`12`), else undefined: `012`,
 * `1.0`, `1e1`, `+1`, ` 1` name no resource (404), whatever Number() would make of them.
 */
export function canonicalId(raw: string | undefined): number | undefined {
  if (raw === undefined || !/^[1-9][0-9]{0,15}$/.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : undefined;
}

export async function authenticate(
  store: KeyLookup,
  token: string | undefined,
  access?: AccountAccess,
  now: Date = new Date(),
): Promise<Identity> {
  const presented = token?.trim();
  if (!presented || presented.length > MAX_KEY_LENGTH) throw new Unauthorized();
  const hash = sha256Hex(presented);
  const parsedAccount = access ? canonicalId(access.accountId) : undefined;
  const validAccount = parsedAccount !== undefined;
  const accountId = parsedAccount ?? NaN;
  // No cache: the key item is read (strongly consistent) on every request, so a revoked key
  // fails on the very next one. A key that names its user (`cv_u<id>_…`) is read together with
  // that user's membership: one round trip instead of two.
  const hint = access && validAccount && store.findKeyAndRole ? keyUserHint(presented) : undefined;
  const first: { key?: KeyRecord | undefined; role?: Role | undefined } =
    hint !== undefined && store.findKeyAndRole ? await store.findKeyAndRole(hash, accountId, hint) : { key: await store.findKeyByHash(hash) };
  const key = first.key;
  if (!key) throw new Unauthorized();
  // The use is recorded alongside the membership read, not after it.
  const touch = touchIfDue(store, key, now);
  if (!access) {
    await touch;
    return { userId: key.userId, keyId: key.keyId };
  }
  // A non-canonical `{account_id}` names no account: 404, as for any other path id.
  if (!validAccount) {
    await touch;
    throw new NotFound();
  }
  // The name in the key only chose which membership to read along: the key item says whose key it is.
  const roleRead = hint === key.userId ? Promise.resolve(first.role) : store.findRole(accountId, key.userId);
  const [role] = await Promise.all([roleRead, touch]);
  if (!role) throw new ForbiddenAccount();
  if (!roleAllows(role, access.needed)) throw new ForbiddenAction();
  return { userId: key.userId, keyId: key.keyId, accountId, role };
}

/**
 * When this container last recorded each key's use. Not an auth cache: it only spares writes
 * (at most one per key per KEY_TOUCH_INTERVAL_SECONDS per container). Bounded in size.
 */
const touched = new Map<string, number>();
const MAX_TOUCHED = 10_000;

/** Best effort: a failed write of `last_used_at` never fails the request. */
async function touchIfDue(store: KeyLookup, key: KeyRecord, now: Date): Promise<void> {
  if (!store.touchKey) return;
  const nowSec = Math.floor(now.getTime() / 1000);
  const last = touched.get(key.keyId);
  if (last !== undefined && nowSec - last < KEY_TOUCH_INTERVAL_SECONDS && nowSec >= last) return;
  if (touched.size >= MAX_TOUCHED) touched.clear();
  touched.set(key.keyId, nowSec);
  await store.touchKey(key, nowSec).catch(() => touched.delete(key.keyId));
}
