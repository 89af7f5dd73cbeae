import { describe, expect, it } from "vitest";
import { createServer } from "node:http";
import { isForbiddenAddress } from "../../shared/delivery/ssrf.ts";
import { postJson } from "../../shared/delivery/sender.ts";

describe("SSRF address ranges", () => {
  it.each([
    "127.0.0.1", "127.255.255.254", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
    "169.254.169.254", "169.254.0.1", "100.64.0.1", "100.127.255.255", "0.0.0.0", "224.0.0.1",
    "255.255.255.255", "198.18.0.1",
    "::1", "::", "fe80::1", "fc00::1", "fd00:ec2::254", "fd12:3456::1", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1", "::ffff:8.8.8.8", "::ffff:7f00:1",
    "::127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:a9fe:a9fe::1", "not-an-ip", "",
  ])("refuses %s", (ip) => {
    expect(isForbiddenAddress(ip)).toBe(true);
  });

  it.each(["8.8.8.8", "1.1.1.1", "93.184.216.34", "172.32.0.1", "100.128.0.1", "2606:4700:4700::1111", "2a00:1450:4001::200e"])(
    "allows the public address %s",
    (ip) => {
      expect(isForbiddenAddress(ip)).toBe(false);
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
      expect(byName).toMatchObject({ ok: false, status: null });
      expect(byName.error).toMatch(/non-public address/);
      expect(byLiteral.error).toMatch(/non-public address/);
      expect(mapped.error).toMatch(/non-public address/);
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
