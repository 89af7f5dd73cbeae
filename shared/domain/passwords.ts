/**
 * Password hashing with scrypt (node:crypto). Stored as `scrypt$N$r$p$<salt b64>$<hash b64>`.
 * `verifyPassword` against `DUMMY_HASH` does the same work for an unknown e-mail, so a login's
 * timing does not reveal which e-mails exist.
 */
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from "node:crypto";

const N = 16384;
const R = 8;
const P = 1;
const KEYLEN = 32;

function scrypt(password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> {
  return new Promise((res, rej) => scryptCb(password.normalize("NFKC"), salt, keylen, opts, (err, key) => (err ? rej(err) : res(key))));
}

/** Counts hashing work (tests assert that an unknown e-mail costs the same as a known one). */
export const hashingStats = { calls: 0 };

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  hashingStats.calls++;
  const key = await scrypt(password, salt, KEYLEN, { N, r: R, p: P, maxmem: 64 * 1024 * 1024 });
  return `scrypt$${N}$${R}$${P}$${salt.toString("base64")}$${key.toString("base64")}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split("$");
  if (parts.length !== 6 || parts[0] !== "scrypt") return false;
  const [n, r, p] = [Number(parts[1]), Number(parts[2]), Number(parts[3])];
  const salt = Buffer.from(parts[4]!, "base64");
  const expected = Buffer.from(parts[5]!, "base64");
  hashingStats.calls++;
  const key = await scrypt(password, salt, expected.length, { N: n, r, p, maxmem: 64 * 1024 * 1024 });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/** A valid hash of a random password: verify against it when the user does not exist. */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${randomBytes(16).toString("base64")}$${randomBytes(KEYLEN).toString("base64")}`;
