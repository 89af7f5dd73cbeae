/**
 * The webhook sender against real HTTP servers on 127.0.0.1: what a receiver gets (a signed JSON
 * POST), what the delivery log records of its answer (status, first 1 KB, error, Retry-After), how
 * names are looked up and checked (the address guard), and the failures that never throw.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Socket } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { BLOCKED_ADDRESS, guardedLookup, postJson, RESPONSE_BODY_BYTES, type SendResult } from "../../shared/delivery/sender.ts";
import { newWebhookSecret, signatureHeaders } from "../../shared/delivery/signing.ts";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly remotePort: number;
}

/** A raw TCP server: `onSocket` handles each connection; closing it destroys every socket still open. */
async function tcpServer(onSocket: (socket: Socket) => void) {
  const sockets = new Set<Socket>();
  const tcp = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((r) => tcp.listen(0, "127.0.0.1", r));
  open.push(
    () =>
      new Promise<void>((r) => {
        for (const socket of sockets) socket.destroy();
        tcp.close(() => r());
      }),
  );
  return (tcp.address() as AddressInfo).port;
}

/** A server recording every request (method, headers, raw body, client port); `answer` replies. */
async function server(answer: (res: ServerResponse, n: number) => void = (res) => res.writeHead(200).end()) {
  const seen: Seen[] = [];
  const s = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8"), remotePort: req.socket.remotePort ?? 0 });
      answer(res, seen.length - 1);
    });
  });
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((r) => {
      s.closeAllConnections();
      s.close(() => r());
    });
  open.push(close);
  return { seen, port, base: `http://127.0.0.1:${port}`, close };
}

const open: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c()));
});

const local = { timeoutMs: 3000, allowPrivate: true };
/** The result without its duration (which varies), for exact comparisons. */
const settled = (r: SendResult) => ({ ...r, durationMs: 0 });

describe("what the receiver gets", () => {
  it("sequential deliveries to one receiver reuse one kept-alive connection", async () => {
    // First in this file: the sender's connection pool starts empty here, as in a new container.
    const srv = await server();
    for (let i = 0; i < 3; i++) expect((await postJson(`${srv.base}/hook`, "{}", {}, local)).ok).toBe(true);
    expect(srv.seen).toHaveLength(3);
    expect(new Set(srv.seen.map((s) => s.remotePort)).size).toBe(1);
  });

  it("a POST of the body as JSON with the Standard Webhooks headers, which the reference library verifies", async () => {
    const srv = await server();
    const secret = newWebhookSecret();
    const body = JSON.stringify({ event: "contact_created", id: "1", name: "Zoë ✓" });
    const headers = signatureHeaders(secret, "msg_1", Math.floor(Date.now() / 1000), body);
    const r = await postJson(`${srv.base}/hook?x=1`, body, headers, local);
    expect(r).toMatchObject({ ok: true, status: 200, error: null });
    const [got] = srv.seen;
    expect(got).toMatchObject({ method: "POST", url: "/hook?x=1", body });
    expect(got!.headers["content-type"]).toBe("application/json");
    expect(got!.headers["content-length"]).toBe(String(Buffer.byteLength(body, "utf8")));
    expect(got!.headers["user-agent"]).toBe("Conversa-Webhooks/1.0");
    expect(new Webhook(secret).verify(got!.body, got!.headers as Record<string, string>)).toEqual(JSON.parse(body));
  });

  it("passes the caller's extra headers on (a test send's marker)", async () => {
    const srv = await server();
    await postJson(srv.base, "{}", { "webhook-test": "true" }, local);
    expect(srv.seen[0]!.headers["webhook-test"]).toBe("true");
  });

});

describe("the answer the delivery log records", () => {
  it.each([200, 201, 204, 299])("%i is a success", async (status) => {
    const srv = await server((res) => res.writeHead(status).end());
    expect(settled(await postJson(srv.base, "{}", {}, local))).toStrictEqual({ ok: true, status, error: null, body: "", durationMs: 0 });
  });

  it.each([300, 301, 302, 307, 308, 399])("%i is a failure: redirects are not followed", async (status) => {
    const elsewhere = await server();
    const srv = await server((res) => res.writeHead(status, { location: `${elsewhere.base}/moved` }).end());
    const r = await postJson(srv.base, "{}", {}, local);
    expect(settled(r)).toStrictEqual({ ok: false, status, error: `HTTP ${status} (redirects are not followed)`, body: "", durationMs: 0 });
    expect(elsewhere.seen).toHaveLength(0);
  });

  it.each([400, 404, 410, 500, 502])("%i is a failure named by its status", async (status) => {
    const srv = await server((res) => res.writeHead(status).end());
    expect(settled(await postJson(srv.base, "{}", {}, local))).toStrictEqual({ ok: false, status, error: `HTTP ${status}`, body: "", durationMs: 0 });
  });

  /** A raw TCP receiver answering every request with `reply` as is. */
  async function raw(reply: string) {
    const port = await tcpServer((socket) => socket.once("data", () => socket.write(reply)));
    return `http://127.0.0.1:${port}/hook`;
  }

  it.each([99, 101])("a final status below 200 (%i) is a failure", async (status) => {
    const url = await raw(`HTTP/1.1 ${String(status).padStart(3, "0")} Odd\r\nContent-Length: 0\r\n\r\n`);
    expect(settled(await postJson(url, "{}", {}, local))).toStrictEqual({ ok: false, status, error: `HTTP ${status}`, body: "", durationMs: 0 });
  });

  it("provisional 1xx answers are skipped: the final status decides", async () => {
    const url = await raw("HTTP/1.1 102 Processing\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n");
    expect(settled(await postJson(url, "{}", {}, local))).toStrictEqual({ ok: true, status: 204, error: null, body: "", durationMs: 0 });
  });

  it.each([429, 503])("reads Retry-After on a %i", async (status) => {
    const srv = await server((res) => res.writeHead(status, { "retry-after": "7" }).end("slow down"));
    const r = await postJson(srv.base, "{}", {}, local);
    expect(settled(r)).toStrictEqual({ ok: false, status, error: `HTTP ${status}`, body: "slow down", retryAfterSeconds: 7, durationMs: 0 });
  });

  it.each([500, 502, 200])("ignores Retry-After on a %i (it only brings a 429 or 503 retry forward)", async (status) => {
    const srv = await server((res) => res.writeHead(status, { "retry-after": "7" }).end());
    const r = await postJson(srv.base, "{}", {}, local);
    expect(r).not.toHaveProperty("retryAfterSeconds");
  });

  it("keeps the answer's body as text", async () => {
    const srv = await server((res) => res.writeHead(422, { "content-type": "text/plain" }).end("unknown event: Zoë"));
    expect(settled(await postJson(srv.base, "{}", {}, local))).toStrictEqual({ ok: false, status: 422, error: "HTTP 422", body: "unknown event: Zoë", durationMs: 0 });
  });

  it("keeps exactly the first 1 KB of a longer answer sent in several pieces", async () => {
    const text = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(97 + (i % 26))).join("");
    // 600 + 600 + 1800 bytes, each written after a pause so they arrive as separate reads.
    const srv = await server((res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      res.write(text.slice(0, 600));
      setTimeout(() => res.write(text.slice(600, 1200)), 50);
      setTimeout(() => res.end(text.slice(1200)), 100);
    });
    const r = await postJson(srv.base, "{}", {}, local);
    expect(RESPONSE_BODY_BYTES).toBe(1024);
    expect(r).toMatchObject({ ok: true, status: 200, error: null, body: text.slice(0, 1024) });
  });

  it("stops reading an answer that never ends once past 64 KB and judges the attempt on its status", async () => {
    const chunk = "x".repeat(16 * 1024);
    const srv = await server((res) => {
      res.writeHead(200, { "content-type": "text/plain" });
      const pump = setInterval(() => {
        if (res.destroyed || !res.write(chunk)) return;
      }, 5);
      res.on("close", () => clearInterval(pump));
    });
    const r = await postJson(srv.base, "{}", {}, { timeoutMs: 5000, allowPrivate: true });
    expect(r).toMatchObject({ ok: true, status: 200, error: null, body: chunk.slice(0, 1024) });
    expect(r.durationMs).toBeLessThan(5000);
  });

  it("reads an answer of up to 64 KB to its end: one that stalls after exactly 64 KB has not answered in time", async () => {
    const srv = await server((res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(128 * 1024) });
      res.write("y".repeat(64 * 1024)); // and nothing more
    });
    const r = await postJson(srv.base, "{}", {}, { timeoutMs: 700, allowPrivate: true });
    expect(settled(r)).toStrictEqual({ ok: false, status: null, error: "timeout after 700 ms", durationMs: 0 });
  });

  it("one byte past 64 KB the answer is cut short and the attempt judged on its status", async () => {
    const srv = await server((res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-length": String(128 * 1024) });
      res.write("y".repeat(64 * 1024 + 1)); // and nothing more
    });
    const r = await postJson(srv.base, "{}", {}, { timeoutMs: 3000, allowPrivate: true });
    expect(settled(r)).toStrictEqual({ ok: true, status: 200, error: null, body: "y".repeat(1024), durationMs: 0 });
  });

  it("a receiver that drops the connection in the middle of its answer: judged on the status it sent, with what arrived", async () => {
    const srv = await server((res) => {
      res.writeHead(503, { "content-type": "text/plain", "content-length": "1000", "retry-after": "30" });
      res.write("going down", () => setTimeout(() => res.socket?.destroy(), 50));
    });
    const r = await postJson(srv.base, "{}", {}, local);
    expect(settled(r)).toStrictEqual({ ok: false, status: 503, error: "HTTP 503", body: "going down", retryAfterSeconds: 30, durationMs: 0 });
  });

  it("a receiver that takes longer than the timeout is a failure with no status", async () => {
    const srv = await server((res) => setTimeout(() => res.writeHead(200).end(), 1500));
    const r = await postJson(srv.base, "{}", {}, { timeoutMs: 300, allowPrivate: true });
    expect(settled(r)).toStrictEqual({ ok: false, status: null, error: "timeout after 300 ms", durationMs: 0 });
    expect(r.durationMs).toBeGreaterThanOrEqual(290);
  });
});

describe("failures before any answer (never thrown)", () => {
  it("a url that does not parse", async () => {
    expect(await postJson("not a url", "{}", {}, local)).toStrictEqual({ ok: false, status: null, error: "invalid url", durationMs: 0 });
  });

  it.each(["ftp://127.0.0.1/hook", "file:///etc/passwd", "javascript:alert(1)"])("a scheme other than http and https: %s", async (url) => {
    const scheme = new URL(url).protocol;
    expect(await postJson(url, "{}", {}, local)).toStrictEqual({ ok: false, status: null, error: `unsupported scheme ${scheme}`, durationMs: 0 });
  });

  it("a refused connection names the address and port", async () => {
    const srv = await server();
    await srv.close();
    const r = await postJson(`${srv.base}/hook`, "{}", {}, local);
    expect(settled(r)).toStrictEqual({ ok: false, status: null, error: `connect ECONNREFUSED 127.0.0.1:${srv.port}`, durationMs: 0 });
  });

  it("an https url speaks TLS: the receiver's first bytes are a TLS handshake, never the payload in the clear", async () => {
    const firstBytes: Buffer[] = [];
    const port = await tcpServer((socket) => socket.once("data", (d: Buffer) => (firstBytes.push(d), socket.destroy())));
    const r = await postJson(`https://127.0.0.1:${port}/hook`, '{"secret":"payload"}', {}, local);
    expect(r).toMatchObject({ ok: false, status: null });
    expect(firstBytes).toHaveLength(1);
    expect([...firstBytes[0]!.subarray(0, 2)]).toEqual([0x16, 0x03]); // a TLS handshake record
    expect(firstBytes[0]!.toString("latin1")).not.toContain("payload");
  });

  it("a name that does not resolve is a failure, not a refusal", async () => {
    for (const allowPrivate of [true, false]) {
      const r = await postJson("http://no-such-host.invalid/hook", "{}", {}, { timeoutMs: 3000, allowPrivate });
      expect(r).toMatchObject({ ok: false, status: null });
      expect(r.error).toMatch(/ENOTFOUND|EAI_AGAIN/);
      expect(r).not.toHaveProperty("blocked");
    }
  });
});

describe("the address guard", () => {
  it("a name resolving to a private address is refused before connecting; allowed private networks reach it", async () => {
    const srv = await server();
    const refused = await postJson(`http://localhost:${srv.port}/hook`, "{}", {}, { timeoutMs: 3000, allowPrivate: false });
    expect(settled(refused)).toStrictEqual({ ok: false, status: null, error: BLOCKED_ADDRESS, blocked: true, durationMs: 0 });
    expect(srv.seen).toHaveLength(0);
    const allowed = await postJson(`http://localhost:${srv.port}/hook`, "{}", {}, local);
    expect(allowed).toMatchObject({ ok: true, status: 200, error: null });
    expect(srv.seen).toHaveLength(1);
    expect(srv.seen[0]!.headers.host).toBe(`localhost:${srv.port}`);
  });

  type Answer = { err: NodeJS.ErrnoException | null; address?: string | LookupAddress[]; family?: number };
  const lookup = (allowPrivate: boolean, host: string, options: { all?: boolean; family?: number }) =>
    new Promise<Answer>((resolve) => {
      guardedLookup(allowPrivate)(host, options as never, (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) =>
        resolve({ err, address, family }),
      );
    });
  const system = (host: string) =>
    new Promise<LookupAddress[]>((resolve) => dnsLookup(host, { all: true }, (err, a) => resolve(err ? [] : a)));

  it("refuses a name with a non-public address, naming the name and the address", async () => {
    const { err } = await lookup(false, "localhost", {});
    expect(err).toBeInstanceOf(Error);
    expect(err!.code).toBe("EFORBIDDENADDRESS");
    expect(err!.message).toMatch(/^refused: localhost resolves to a non-public address \((127\.0\.0\.1|::1)\)$/);
  });

  it("answers one address, or every address when asked for all", async () => {
    const expected = await system("localhost");
    expect(expected.length).toBeGreaterThan(0);
    const one = await lookup(true, "localhost", {});
    expect(one).toEqual({ err: null, address: expected[0]!.address, family: expected[0]!.family });
    const all = await lookup(true, "localhost", { all: true });
    expect(all.err).toBeNull();
    expect(all.address).toEqual(expected);
  });

  it.each([4, 6])("answers only IPv%i addresses when asked for that family", async (family) => {
    const r = await lookup(true, "localhost", { all: true, family });
    const of = (await system("localhost")).filter((a) => a.family === family);
    if (of.length === 0) expect(r.err?.code).toBe("ENOTFOUND");
    else expect(r).toEqual({ err: null, address: of, family: undefined });
  });

  it("passes a resolver error on", async () => {
    const r = await lookup(false, "no-such-host.invalid", { all: true });
    expect(r.err?.code).toMatch(/ENOTFOUND|EAI_AGAIN/);
  });

  it("an answer without any address is an error, never an address-less socket", async () => {
    // The resolver answers an empty name with an empty list and no error.
    for (const all of [false, true]) {
      const r = await lookup(true, "", { all });
      expect(r.err?.message).toBe("no address for ");
    }
  });
});
