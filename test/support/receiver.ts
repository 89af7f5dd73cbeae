/** A real webhook receiver on 127.0.0.1 that records every request and answers as told. */
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";

export interface Received {
  readonly at: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: { event: string; id: string } & Record<string, unknown>;
}

/** What to do with the n-th request (0-based): a status, optionally after a delay. */
export type Behaviour = (n: number, req: { body: string }) => { status: number; delayMs?: number; headers?: Record<string, string>; body?: string };

export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
  behaviour: Behaviour;
  /** Resolves with the first `count` requests matching, or rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs: number, match?: (r: Received) => boolean): Promise<Received[]>;
  close(): Promise<void>;
}

export async function startReceiver(behaviour: Behaviour = () => ({ status: 200 }), port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const waiters = new Set<() => void>();
  let n = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const r = recv.behaviour(n++, { body });
      let json: Received["json"];
      try {
        json = JSON.parse(body) as Received["json"];
      } catch {
        json = { event: "", id: "" };
      }
      received.push({ at: Date.now(), headers: req.headers, body, json });
      for (const w of waiters) w();
      const reply = () => {
        if (!res.destroyed) res.writeHead(r.status, r.headers ?? {}).end(r.body);
      };
      if (r.delayMs) setTimeout(reply, r.delayMs);
      else reply();
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const actual = (server.address() as { port: number }).port;
  const recv: Receiver = {
    url: `http://127.0.0.1:${actual}/hook`,
    port: actual,
    received,
    behaviour,
    waitFor(count, timeoutMs, match = () => true) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const hits = received.filter(match);
          if (hits.length >= count) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(hits.slice(0, count));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`receiver ${actual}: ${received.filter(match).length}/${count} requests after ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return recv;
}
