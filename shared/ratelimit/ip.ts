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
    has(ip: string): boolean {
      if (size === 0) return false;
      const address = normalizeIp(ip);
      const version = isIP(address);
      if (version === 0) return false;
      return list.check(address, version === 4 ? "ipv4" : "ipv6");
    },
  };
}

/** The eight 16-bit groups of an IPv6 address (embedded dotted IPv4 allowed). */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const dotted = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const parse = (s: string) => (s ? s.split(":").map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const fill = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...fill, ...right];
}

/**
 * The subject an IP rule counts: the IPv4 address itself, or the /64 of an IPv6 address
 * (one host usually holds a whole /64, so counting single IPv6 addresses is trivially evaded).
 */
export function ipSubject(ip: string): string {
  const address = normalizeIp(ip);
  if (isIP(address) !== 6) return address;
  const groups = ipv6Groups(address).slice(0, 4);
  return `${groups.map((g) => g.toString(16)).join(":")}::/64`;
}
