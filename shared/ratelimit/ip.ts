/**
 * Client IPs for rate limiting: the allow-list of THROTTLE_ALLOWED_IPS (IPs and CIDRs, IPv4 and
 * IPv6) and the counting key of an address. Pure: node:net only.
 */
import { BlockList, isIP } from "node:net";
import { normalizeIp, parseIpEntry } from "../ip-entry.ts";

// The entry parsing sits below the configuration (which validates THROTTLE_ALLOWED_IPS with it).
export { invalidIpEntries, normalizeIp, parseIpEntry, type IpEntry } from "../ip-entry.ts";

export interface AllowList {
  has(ip: string): boolean;
  readonly size: number;
}

/** Matches IPv4 and IPv6 addresses (and IPv4-mapped IPv6) against IPs and CIDRs. */
export function allowList(entries: readonly string[]): AllowList {
  const list = new BlockList();
  let size = 0;
  for (const e of entries) {
    const parsed = parseIpEntry(e);
    if (!parsed) throw new Error(`invalid IP or CIDR: ${e}`);
    list.addSubnet(parsed.address, parsed.prefix, parsed.family);
    size++;
  }
  return {
    size,
    /** Not an IP (or an empty list): false, as BlockList.check answers for anything it cannot parse. */
    has(ip: string): boolean {
      const address = normalizeIp(ip);
      return list.check(address, isIP(address) === 4 ? "ipv4" : "ipv6");
    },
  };
}

/**
 * The first four 16-bit groups (the /64) of a valid IPv6 address. A zone (`fe80::1%eth0`) is not
 * part of the address. An embedded dotted IPv4 (`64:ff9b::192.0.2.1`) is the last two groups, always
 * outside the /64: it only counts as two groups here.
 */
function ipv6Prefix64(ip: string): number[] {
  const [address] = ip.split("%") as [string];
  const [head, tail] = address.split("::") as [string, string | undefined];
  const parse = (s: string | undefined) => (s ? s.split(":").flatMap((g) => (g.includes(".") ? [0, 0] : [parseInt(g, 16)])) : []);
  const left = parse(head);
  const right = parse(tail);
  return [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right].slice(0, 4);
}

/**
 * The subject an IP rule counts: the IPv4 address itself, or the /64 of an IPv6 address
 * (one host usually holds a whole /64, so counting single IPv6 addresses is trivially evaded).
 */
export function ipSubject(ip: string): string {
  const address = normalizeIp(ip);
  if (isIP(address) !== 6) return address;
  return `${ipv6Prefix64(address).map((g) => g.toString(16)).join(":")}::/64`;
}
