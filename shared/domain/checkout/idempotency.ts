/**
 * `Idempotency-Key` records for subscribe: the same key with the same body returns the
 * first reply; with another body, 409.
 *
 * The first reply holds a fresh API key, and the body holds a password, so neither is stored in
 * a form that can be read or cheaply guessed:
 * - `fingerprint` = SHA-256 of the canonical body WITHOUT the password: decides "same body";
 * - the reply is sealed with AES-256-GCM under scrypt(canonical body WITH the password, salt):
 *   only a request carrying the same password opens it (a wrong one fails authentication → 409).
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt as scryptCb } from "node:crypto";
import { sha256Hex } from "../secrets.ts";

/** Records live as long as the checkout's other short-lived data. */
export const IDEMPOTENCY_TTL_SECONDS = 24 * 3600;
export const IDEMPOTENCY_KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

export interface IdempotencyRecord {
  readonly key: string;
  readonly fingerprint: string;
  /** base64: salt(16) | iv(12) | tag(16) | ciphertext. */
  readonly sealed: string;
  readonly expiresAt: number;
}

/** JSON with object keys sorted: equal values give equal strings whatever the key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const obj = value as Record<string, unknown>;
    // Undefined members are left out, as JSON does; keys in UTF-16 code unit order (the default sort).
    const keys = Object.keys(obj).filter((k) => obj[k] !== undefined).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

export const fingerprint = (publicPart: unknown): string => sha256Hex(`conversa.idempotency.v1\0${canonicalJson(publicPart)}`);

function deriveKey(secretPart: unknown, salt: Buffer): Promise<Buffer> {
  return new Promise((res, rej) =>
    // Stryker disable next-line ObjectLiteral: these are Node's scrypt defaults (16 MiB needed, 32 MiB allowed); stated so a change of defaults cannot change the key
    scryptCb(`conversa.idempotency.seal.v1\0${canonicalJson(secretPart)}`, salt, 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }, (err, key) =>
      err ? rej(err) : res(key),
    ),
  );
}

export async function seal(reply: unknown, secretPart: unknown): Promise<string> {
  const salt = randomBytes(16);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", await deriveKey(secretPart, salt), iv);
  // Stryker disable next-line StringLiteral: Node reads a string in UTF-8 when no encoding is named, as it does for ""
  const ct = Buffer.concat([cipher.update(JSON.stringify(reply), "utf8"), cipher.final()]);
  return Buffer.concat([salt, iv, cipher.getAuthTag(), ct]).toString("base64");
}

/** The sealed reply, or undefined when `secretPart` is not the one it was sealed with. */
export async function unseal(sealed: string, secretPart: unknown): Promise<unknown> {
  const buf = Buffer.from(sealed, "base64");
  // Too short to hold a ciphertext: refused without deriving a key.
  // Stryker disable next-line ConditionalExpression: without the check an empty ciphertext fails JSON.parse and the catch returns undefined all the same
  if (buf.length < 45) return undefined;
  const [salt, iv, tag, ct] = [buf.subarray(0, 16), buf.subarray(16, 28), buf.subarray(28, 44), buf.subarray(44)];
  try {
    const decipher = createDecipheriv("aes-256-gcm", await deriveKey(secretPart, salt), iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(ct), decipher.final()]).toString("utf8"));
  } catch {
    // Another secret fails authentication, and so does a damaged value: not this request's reply.
  }
  return undefined;
}
