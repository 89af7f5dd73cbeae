/**
 * One IP or CIDR entry (`1.2.3.4`, `10.0.0.0/8`, `2001:db8::/32`, `::1`), as THROTTLE_ALLOWED_IPS
 * lists them. Pure (node:net only) and below the configuration, which rejects a bad entry at
 * start-up; the rate limiter's allow list (shared/ratelimit/ip.ts) is built from the same parser.
 */
import { isIP } from "node:net";

export interface IpEntry {
  readonly address: string;
  readonly prefix: number;
  readonly family: "ipv4" | "ipv6";
}

const V4_MAPPED = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** `::ffff:1.2.3.4` → `1.2.3.4`; IPv6 lower-cased; anything else unchanged. */
export function normalizeIp(ip: string): string {
  const trimmed = ip.trim();
  const mapped = V4_MAPPED.exec(trimmed);
  if (mapped) return mapped[1]!;
  return trimmed.includes(":") ? trimmed.toLowerCase() : trimmed;
}

/** One THROTTLE_ALLOWED_IPS entry (`1.2.3.4`, `10.0.0.0/8`, `2001:db8::/32`, `::1`); undefined when invalid. */
export function parseIpEntry(entry: string): IpEntry | undefined {
  const [rawAddress, rawPrefix, extra] = entry.trim().split("/");
  if (extra !== undefined || !rawAddress) return undefined;
  const address = normalizeIp(rawAddress);
  const version = isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  let prefix = max;
  if (rawPrefix !== undefined) {
    if (!/^\d{1,3}$/.test(rawPrefix)) return undefined;
    prefix = Number(rawPrefix);
    if (prefix > max) return undefined;
  }
  return { address, prefix, family: version === 4 ? "ipv4" : "ipv6" };
}

/** The entries of THROTTLE_ALLOWED_IPS that do not parse (config rejects them). */
export function invalidIpEntries(entries: readonly string[]): string[] {
  return entries.filter((e) => parseIpEntry(e) === undefined);
}
