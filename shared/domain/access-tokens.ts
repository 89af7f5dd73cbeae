/**
 * `/api/v1/profile/access_tokens`: a user's API keys. Listed with their
 * prefix only; created with the full key shown once; revoked at once (no auth cache anywhere,
 * every authentication reads the key's item with a strongly consistent read).
 */
import { NotFound } from "../errors.ts";
import type { IssuedKey } from "./sign-in.ts";

export interface AccessToken {
  readonly id: string;
  readonly name: string;
  readonly prefix: string;
  readonly created_at: number;
  /** Unix seconds of the last authenticated request, to within KEY_TOUCH_INTERVAL_SECONDS (auth.ts). */
  readonly last_used_at: number | null;
}

export interface AccessTokenStore {
  listKeys(userId: number, nowSec: number): Promise<AccessToken[]>;
  createKey(userId: number, name: string, nowSec: number): Promise<IssuedKey>;
  /** Deletes both items of the key if it is the user's; false when there is no such key. */
  revokeKey(userId: number, keyId: string): Promise<boolean>;
}

export const DEFAULT_KEY_NAME = "api";

/** Key ids are the first 16 hex digits of the key's SHA-256. */
const KEY_ID = /^[0-9a-f]{16}$/;

/** Newest first; ties by id so pages are stable. */
export async function listAccessTokens(store: AccessTokenStore, userId: number, now: Date): Promise<AccessToken[]> {
  const list = await store.listKeys(userId, Math.floor(now.getTime() / 1000));
  return list.sort((a, b) => b.created_at - a.created_at || a.id.localeCompare(b.id));
}

export async function createAccessToken(store: AccessTokenStore, userId: number, name: string | undefined, now: Date): Promise<IssuedKey & { last_used_at: null }> {
  const key = await store.createKey(userId, name ?? DEFAULT_KEY_NAME, Math.floor(now.getTime() / 1000));
  return { ...key, last_used_at: null };
}

export async function revokeAccessToken(store: AccessTokenStore, userId: number, keyId: string | undefined): Promise<void> {
  if (!keyId || !KEY_ID.test(keyId)) throw new NotFound();
  if (!(await store.revokeKey(userId, keyId))) throw new NotFound();
}
