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

/** API keys: `cv_` + 256 random bits; the first 10 characters are shown as the prefix. */
export function newApiKey(): { key: string; hash: string; prefix: string } {
  const key = `cv_${randomToken(32)}`;
  return { key, hash: sha256Hex(key), prefix: key.slice(0, 10) };
}
