/** THROTTLE_ALLOWED_IPS matching (IPv4, IPv6, CIDRs, IPv4-mapped) and the IP counting subject. */
import { describe, expect, it } from "vitest";
import { allowList, invalidIpEntries, ipSubject, normalizeIp, parseIpEntry } from "../../shared/ratelimit/ip.ts";

describe("allow-list", () => {
  // Built in each test: the list is part of what is tested.
  const list = () => allowList(["10.0.0.0/8", "192.0.2.7", "2001:db8::/32", "::1", "fe80::1/128"]);

  it.each([
    ["10.1.2.3", true],
    ["10.255.255.255", true],
    ["11.0.0.1", false],
    ["192.0.2.7", true],
    ["192.0.2.8", false],
    ["::ffff:10.9.9.9", true],
    ["::ffff:192.0.2.7", true],
    ["2001:db8:1234::5", true],
    ["2001:DB8::abcd", true],
    ["2001:db9::1", false],
    ["::1", true],
    ["::2", false],
    ["fe80::1", true],
    ["fe80::2", false],
    ["not-an-ip", false],
    ["", false],
  ])("%s → %s", (ip, expected) => {
    expect(list().has(ip)).toBe(expected);
  });

  it("holds every entry it was given", () => {
    expect(list().size).toBe(5);
    expect(allowList([]).size).toBe(0);
  });

  it("a /0 matches every address of its family, and nothing that is not an IP", () => {
    const all = allowList(["0.0.0.0/0", "::/0"]);

    for (const ip of ["1.2.3.4", "255.255.255.255", "::", "2001:db8::1", "::ffff:1.2.3.4"]) expect(all.has(ip), ip).toBe(true);
    for (const ip of ["not-an-ip", "", "1.2.3", "01.2.3.4", "1.2.3.4.5", "[::1]", "1.2.3.4%eth0"]) expect(all.has(ip), ip).toBe(false);
    expect(allowList(["0.0.0.0/0"]).has("2001:db8::1")).toBe(false);
  });

  it("an empty list matches nothing", () => {
    expect(allowList([]).has("127.0.0.1")).toBe(false);
  });

  it("rejects malformed entries", () => {
    expect(invalidIpEntries(["1.2.3.4", "1.2.3.4/33", "10.0.0.0/8/1", "2001:db8::/129", "example.com", "1.2.3.4/x", "::/0"])).toEqual([
      "1.2.3.4/33",
      "10.0.0.0/8/1",
      "2001:db8::/129",
      "example.com",
      "1.2.3.4/x",
    ]);
    expect(parseIpEntry("2001:db8::/32")).toEqual({ address: "2001:db8::", prefix: 32, family: "ipv6" });
    expect(() => allowList(["10.0.0.0/8", "300.1.1.1"])).toThrow("invalid IP or CIDR: 300.1.1.1");
  });
});

describe("IP subject", () => {
  it("is the IPv4 address, IPv4-mapped IPv6 unwrapped", () => {
    expect(ipSubject("203.0.113.10")).toBe("203.0.113.10");
    expect(ipSubject("::ffff:203.0.113.10")).toBe("203.0.113.10");
    expect(normalizeIp(" ::FFFF:203.0.113.10 ")).toBe("203.0.113.10");
  });

  it("is the /64 of an IPv6 address, however it is written", () => {
    expect(ipSubject("2001:db8:0:1::5")).toBe("2001:db8:0:1::/64");
    expect(ipSubject("2001:DB8:0000:0001:ffff::9")).toBe("2001:db8:0:1::/64");
    expect(ipSubject("::1")).toBe("0:0:0:0::/64");
    expect(ipSubject("64:ff9b::192.0.2.1")).toBe("64:ff9b:0:0::/64");
    expect(ipSubject("2001:db8:0:2::5")).not.toBe(ipSubject("2001:db8:0:1::5"));
  });

  it("places the groups after `::` at the end of the address, however many there are", () => {
    expect(ipSubject("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(ipSubject("1::2:3:4:5:6:7")).toBe("1:0:2:3::/64");
    expect(ipSubject("::2:3:4:5:6:7:8")).toBe("0:2:3:4::/64");
    expect(ipSubject("1:2:3::4:5:6:7")).toBe("1:2:3:0::/64");
    expect(ipSubject("1:2:3:4:5:6:7::")).toBe("1:2:3:4::/64");
    expect(ipSubject("::")).toBe("0:0:0:0::/64");
  });

  it("counts an embedded dotted IPv4 as the last two groups", () => {
    expect(ipSubject("2001:db8::1:2:3:198.51.100.10")).toBe("2001:db8:0:1::/64");
    expect(ipSubject("1::2:3:4:5:6.7.8.9")).toBe("1:0:2:3::/64");
    expect(ipSubject("1:2:3:4:5:6:198.51.100.10")).toBe("1:2:3:4::/64");
    expect(ipSubject("::2:3:4:5:6:1.2.3.4")).toBe("0:2:3:4::/64");
  });

  it("leaves a link-local zone (`%eth0`) out of the address", () => {
    expect(ipSubject("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(ipSubject("fe80:0:0:0:1:2:3:4%eth0.5")).toBe("fe80:0:0:0::/64");
    expect(ipSubject("fe80::1%a:b:c:d:e:f")).toBe("fe80:0:0:0::/64");
    expect(ipSubject("fe80::1:2:3:4:1.2.3.4%eth0")).toBe("fe80:0:1:2::/64");
  });
});
