/**
 * SSRF guard: no delivery reaches a private, loopback, link-local, CGNAT,
 * metadata, unique-local, multicast, unspecified or otherwise non-public address. Checked on
 * the resolved IP, which is then the one dialled (see sender.ts).
 */
import { BlockList, isIP } from "node:net";

// Two lists: a BlockList also matches IPv4 addresses against the IPv4-mapped IPv6 subnet.
const blockedV4 = new BlockList();
const blockedV6 = new BlockList();
// IPv4
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this" network, unspecified
  ["10.0.0.0", 8], // private
  ["100.64.0.0", 10], // CGNAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local, incl. 169.254.169.254 (instance metadata)
  ["172.16.0.0", 12], // private
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // private
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, incl. 255.255.255.255 broadcast
] as const) {
  blockedV4.addSubnet(net, prefix, "ipv4");
}
// IPv6
for (const [net, prefix] of [
  ["::", 96], // unspecified, loopback (::1) and IPv4-compatible (::a.b.c.d, deprecated)
  ["::ffff:0:0", 96], // IPv4-mapped (would bypass the IPv4 rules)
  ["::ffff:0:0:0", 96], // IPv4-translated (SIIT; embeds IPv4 likewise)
  ["64:ff9b::", 96], // NAT64 (embeds IPv4)
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo
  ["2001:db8::", 32], // documentation
  ["3fff::", 20], // documentation (2024)
  ["2002::", 16], // 6to4 (embeds IPv4)
  ["fc00::", 7], // unique-local, incl. fd00:ec2::254 (EC2 metadata over IPv6)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) {
  blockedV6.addSubnet(net, prefix, "ipv6");
}

/** True when a delivery must not be sent to this IP address (or the string is not an IP). A zone (`%eth0`) is ignored. */
export function isForbiddenAddress(ip: string): boolean {
  const bare = ip.replace(/%.*/, ""); // the zone: from the first `%` on
  const family = isIP(bare);
  if (family === 0) return true;
  return family === 6 ? blockedV6.check(bare, "ipv6") : blockedV4.check(bare, "ipv4");
}

/**
 * True when a url's host is a literal forbidden address, in any notation: WHATWG URL parsing has
 * already turned decimal, octal, hex and short IPv4 forms (`2130706433`, `0177.0.0.1`, `0x7f.1`,
 * `127.1`) into dotted quads and IPv6 into its compressed form. A name (not an IP) is false: it
 * is checked on the address it resolves to, at delivery.
 */
export function isForbiddenUrlHost(url: URL): boolean {
  // Stryker disable next-line Regex: a WHATWG hostname has brackets only at its two ends (an IPv6 literal)
  const host = url.hostname.replace(/^\[|\]$/g, ""); // WHATWG URL refuses a zone id (`%25eth0`)
  return isIP(host) !== 0 && isForbiddenAddress(host);
}
