/** Random tokens and their hashes (node:crypto only; no AWS). */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const sha256Hex = (s: string): string => createHash("sha256").update(s).digest("hex");

/** `bytes` random bytes as base64url (default 32 bytes = 256 bits). */
export const randomToken = (bytes = 32): string => randomBytes(bytes).toString("base64url");

export const safeEqual = (a: string, b: string): boolean => {
  const ba = Buffer.from(a);
  const bb = Buffer.from(b);
  return ba.length === bb.length && timingSafeEqual(ba, bb);
};

/**
 * API keys: `cv_u<userId>_` + 256 random bits; the first 10 characters are shown as the prefix.
 * The user id in the key lets authentication read the key and that user's membership in one
 * round trip (auth.ts); it grants nothing by itself: the key item, found by the key's hash,
 * says whose key it is.
 */
export function newApiKey(userId: number): { key: string; hash: string; prefix: string } {
  const key = `cv_u${userId}_${randomToken(32)}`;
  return { key, hash: sha256Hex(key), prefix: key.slice(0, 10) };
}

const KEY_WITH_USER = /^cv_u([1-9][0-9]{0,14})_[A-Za-z0-9_-]{43}$/;

/** The user id a key names (`cv_u<id>_…`), if it has the current format. */
export function keyUserHint(key: string): number | undefined {
  const m = KEY_WITH_USER.exec(key);
  return m ? Number(m[1]) : undefined;
}
