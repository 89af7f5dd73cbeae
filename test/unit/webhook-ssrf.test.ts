import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { isForbiddenAddress, isForbiddenUrlHost } from "../../shared/delivery/ssrf.ts";
import { postJson } from "../../shared/delivery/sender.ts";

/**
 * Every blocked range, written out here independently of ssrf.ts: its first and last address are
 * refused and the addresses just outside it are not (a deleted or widened range fails a test).
 */
const RANGES: readonly { readonly range: string; readonly first: string; readonly last: string; readonly outside: readonly string[] }[] = [
  { range: "0.0.0.0/8", first: "0.0.0.0", last: "0.255.255.255", outside: ["1.0.0.0"] },
  { range: "10.0.0.0/8", first: "10.0.0.0", last: "10.255.255.255", outside: ["9.255.255.255", "11.0.0.0"] },
  { range: "100.64.0.0/10", first: "100.64.0.0", last: "100.127.255.255", outside: ["100.63.255.255", "100.128.0.0"] },
  { range: "127.0.0.0/8", first: "127.0.0.0", last: "127.255.255.255", outside: ["126.255.255.255", "128.0.0.0"] },
  { range: "169.254.0.0/16", first: "169.254.0.0", last: "169.254.255.255", outside: ["169.253.255.255", "169.255.0.0"] },
  { range: "172.16.0.0/12", first: "172.16.0.0", last: "172.31.255.255", outside: ["172.15.255.255", "172.32.0.0"] },
  { range: "192.0.0.0/24", first: "192.0.0.0", last: "192.0.0.255", outside: ["191.255.255.255", "192.0.1.0"] },
  { range: "192.0.2.0/24", first: "192.0.2.0", last: "192.0.2.255", outside: ["192.0.1.255", "192.0.3.0"] },
  { range: "192.88.99.0/24", first: "192.88.99.0", last: "192.88.99.255", outside: ["192.88.98.255", "192.88.100.0"] },
  { range: "192.168.0.0/16", first: "192.168.0.0", last: "192.168.255.255", outside: ["192.167.255.255", "192.169.0.0"] },
  { range: "198.18.0.0/15", first: "198.18.0.0", last: "198.19.255.255", outside: ["198.17.255.255", "198.20.0.0"] },
  { range: "198.51.100.0/24", first: "198.51.100.0", last: "198.51.100.255", outside: ["198.51.99.255", "198.51.101.0"] },
  { range: "203.0.113.0/24", first: "203.0.113.0", last: "203.0.113.255", outside: ["203.0.112.255", "203.0.114.0"] },
  { range: "224.0.0.0/4", first: "224.0.0.0", last: "239.255.255.255", outside: ["223.255.255.255"] },
  { range: "240.0.0.0/4", first: "240.0.0.0", last: "255.255.255.255", outside: [] },
  { range: "::/96", first: "::", last: "::ffff:ffff", outside: ["::1:0:0"] },
  { range: "::ffff:0:0/96", first: "::ffff:0.0.0.0", last: "::ffff:ffff:ffff", outside: ["::fffe:ffff:ffff", "::1:0:0:0"] },
  { range: "::ffff:0:0:0/96", first: "::ffff:0:0:0", last: "::ffff:0:ffff:ffff", outside: ["::fffe:ffff:ffff:ffff", "::ffff:1:0:0"] },
  { range: "64:ff9b::/96", first: "64:ff9b::", last: "64:ff9b::ffff:ffff", outside: ["64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", "64:ff9b::1:0:0"] },
  { range: "64:ff9b:1::/48", first: "64:ff9b:1::", last: "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", outside: ["64:ff9b:0:ffff:ffff:ffff:ffff:ffff", "64:ff9b:2::"] },
  { range: "100::/64", first: "100::", last: "100::ffff:ffff:ffff:ffff", outside: ["ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "100:0:0:1::"] },
  { range: "2001::/32", first: "2001::", last: "2001:0:ffff:ffff:ffff:ffff:ffff:ffff", outside: ["2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2001:1::"] },
  { range: "2001:db8::/32", first: "2001:db8::", last: "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", outside: ["2001:db7:ffff:ffff:ffff:ffff:ffff:ffff", "2001:db9::"] },
  { range: "2002::/16", first: "2002::", last: "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: ["2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "2003::"] },
  { range: "3fff::/20", first: "3fff::", last: "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", outside: ["3ffe:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "3fff:1000::"] },
  { range: "fc00::/7", first: "fc00::", last: "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: ["fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "fe00::"] },
  { range: "fe80::/10", first: "fe80::", last: "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: ["fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff"] },
  { range: "fec0::/10", first: "fec0::", last: "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: [] },
  { range: "ff00::/8", first: "ff00::", last: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", outside: [] },
];

describe("SSRF address ranges", () => {
  it.each(RANGES.map((r) => [r.range, r] as const))("%s: first and last refused, just outside allowed", (_range, r) => {
    expect(isForbiddenAddress(r.first)).toBe(true);
    expect(isForbiddenAddress(r.last)).toBe(true);
    for (const ip of r.outside) expect(isForbiddenAddress(ip), ip).toBe(false);
  });

  it.each([
    "127.0.0.1", "169.254.169.254", "fd00:ec2::254", "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1",
    "::ffff:8.8.8.8", "::ffff:7f00:1", "::ffff:0:127.0.0.1", "::ffff:0:7f00:1", "::127.0.0.1", "64:ff9b::a9fe:a9fe",
    "2002:a9fe:a9fe::1", "fe80::1%eth0", "not-an-ip", "",
  ])("refuses %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "2606:4700:4700::1111", "2a00:1450:4001::200e", "2606:4700:4700::1111%eth0", "2a00:1450:4001::200e%2"])("allows the public address %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(false);
  });
});

describe("an address's zone (`%<interface>`) is ignored, whatever it names", () => {
  it.each(["br_lan", "vlan_10", "eth0", "2", "", "wg-home.1"])("a public IPv6 address with the zone %j is allowed", (zone) => {
    expect(isForbiddenAddress(`2606:4700:4700::1111%${zone}`)).toBe(false);
  });

  it.each(["br_lan", "vlan_10", "eth0", "2", ""])("a link-local or loopback address with the zone %j is refused", (zone) => {
    expect(isForbiddenAddress(`fe80::1%${zone}`)).toBe(true);
    expect(isForbiddenAddress(`::1%${zone}`)).toBe(true);
  });

  it("an IPv4 address with a zone is judged on the address", () => {
    expect(isForbiddenAddress("8.8.8.8%eth0")).toBe(false);
    expect(isForbiddenAddress("10.0.0.1%eth0")).toBe(true);
  });
});

describe("a url's literal host, in every notation WHATWG URL parsing accepts", () => {
  it.each([
    "http://127.0.0.1/", "http://2130706433/", "http://0177.0.0.1/", "http://0x7f.1/", "http://0x7f000001/", "http://127.1/",
    "http://0/", "http://017700000001/", "http://[::1]/", "http://[::]/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:0:127.0.0.1]/",
    "http://[::ffff:0:a9fe:a9fe]/", "http://[0:0:0:0:0:ffff:7f00:1]/", "http://[64:ff9b::169.254.169.254]/", "https://169.254.169.254./latest",
    "http://[fd00:ec2::254]/", "http://[FE80::1]:8080/", "http://10.0.0.1:8080/hook", "http://0xa9.0xfe.0xa9.0xfe/",
  ])("refuses %s", (url) => {
    expect(isForbiddenUrlHost(new URL(url))).toBe(true);
  });

  it.each(["https://hooks.example.com/x", "http://localhost:3000/", "http://8.8.8.8/", "http://134744072/", "http://[2606:4700:4700::1111]/"])(
    "lets %s through (a name is checked on its resolved address, at delivery)",
    (url) => {
      expect(isForbiddenUrlHost(new URL(url))).toBe(false);
    },
  );
});

describe("sender", () => {
  it("refuses loopback by name and by literal unless private networks are allowed", async () => {
    const server = createServer((_req, res) => res.writeHead(204).end());
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const port = (server.address() as { port: number }).port;
    try {
      const byName = await postJson(`http://localhost:${port}/hook`, "{}", {}, { timeoutMs: 1000, allowPrivate: false });
      const byLiteral = await postJson(`http://127.0.0.1:${port}/hook`, "{}", {}, { timeoutMs: 1000, allowPrivate: false });
      const mapped = await postJson(`http://[::ffff:127.0.0.1]:${port}/hook`, "{}", {}, { timeoutMs: 1000, allowPrivate: false });
      const allowed = await postJson(`http://127.0.0.1:${port}/hook`, "{}", {}, { timeoutMs: 1000, allowPrivate: true });
      for (const refused of [byName, byLiteral, mapped]) expect(refused).toMatchObject({ ok: false, status: null, error: "blocked_address", blocked: true });
      expect(allowed).toMatchObject({ ok: true, status: 204, error: null });
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("treats 3xx as failure without following, times out, and reads Retry-After on 429", async () => {
    const server = createServer((req, res) => {
      if (req.url === "/redirect") res.writeHead(302, { location: "http://127.0.0.1:1/" }).end();
      else if (req.url === "/slow") setTimeout(() => res.writeHead(200).end(), 1500);
      else res.writeHead(429, { "retry-after": "7" }).end();
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    const opts = { timeoutMs: 300, allowPrivate: true };
    try {
      const redirect = await postJson(`${base}/redirect`, "{}", {}, opts);
      const slow = await postJson(`${base}/slow`, "{}", {}, opts);
      const limited = await postJson(`${base}/limited`, "{}", {}, opts);
      expect(redirect).toMatchObject({ ok: false, status: 302 });
      expect(redirect.error).toMatch(/redirects are not followed/);
      expect(slow).toMatchObject({ ok: false, status: null });
      expect(slow.error).toMatch(/timeout/);
      expect(slow.durationMs).toBeLessThan(1200);
      expect(limited).toMatchObject({ ok: false, status: 429, retryAfterSeconds: 7 });
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  it("a receiver that hangs never makes another on the same host wait for a connection", async () => {
    // Two webhooks of one origin (e.g. one receiver service, two paths): 100 requests hang on
    // /hang; a request to /ok meanwhile gets its own socket at once instead of queueing in the
    // agent's pool (where its timeout would run while it waits).
    const server = createServer((req, res) => {
      if (req.url === "/hang") return; // never answers; closed at the end
      res.writeHead(200).end();
    });
    server.maxConnections = 1000;
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const hanging = Array.from({ length: 100 }, () => postJson(`${base}/hang`, "{}", {}, { timeoutMs: 3000, allowPrivate: true }));
      await new Promise((r) => setTimeout(r, 200)); // the hanging requests hold their sockets
      const ok = await postJson(`${base}/ok`, "{}", {}, { timeoutMs: 1000, allowPrivate: true });
      expect(ok).toMatchObject({ ok: true, status: 200, error: null });
      expect(ok.durationMs).toBeLessThan(500);
      server.closeAllConnections();
      const ended = await Promise.all(hanging);
      expect(ended.every((r) => !r.ok)).toBe(true);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
