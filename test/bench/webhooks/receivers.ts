/**
 * The webhook receivers of the delivery benchmark: one HTTP server on 127.0.0.1, one path per
 * webhook, every healthy delivery's arrival recorded with the time it landed.
 */
import { createServer, type Server } from "node:http";
import { sleep } from "../lib/timing.ts";

/** WEBHOOK_TIMEOUT for the run, and the sleeping receiver's delay (past it). */
export const TIMEOUT_S = 3;
export const SLEEP_MS = 4000;

export interface Arrival {
  readonly at: number;
  readonly path: string;
  readonly inboxId: number;
  readonly webhookId: string;
}

export interface Receivers {
  readonly server: Server;
  readonly base: string;
  readonly arrivals: Arrival[];
  /** While set, `/toggle/...` receivers sleep as `/sleepy/...` ones do (the alternating scenario). */
  readonly toggle: { sleeping: boolean };
}

/**
 * `/sleepy/...` answers after SLEEP_MS, `/toggle/...` too while `toggle.sleeping` is set, every
 * other path at once (and its arrival is recorded).
 */
export async function startReceivers(): Promise<Receivers> {
  const arrivals: Arrival[] = [];
  const toggle = { sleeping: false };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { id: string };
      const path = req.url ?? "";
      const reply = () => res.writeHead(200).end();
      if (path.startsWith("/sleepy") || (path.startsWith("/toggle") && toggle.sleeping)) setTimeout(reply, SLEEP_MS);
      else if (path.startsWith("/toggle")) reply();
      else {
        reply();
        arrivals.push({ at, path, inboxId: Number(body.id), webhookId: String(req.headers["webhook-id"]) });
      }
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, arrivals, toggle };
}

export function stopReceivers(rx: Receivers): void {
  rx.server.closeAllConnections();
  rx.server.close();
}

/**
 * Waits, up to 30 s, until `expected` distinct deliveries (webhook-ids) matching `match` arrived;
 * returns every matching arrival, redeliveries included.
 */
export async function awaitArrivals(rx: Receivers, match: (a: Arrival) => boolean, expected: number): Promise<Arrival[]> {
  const deadline = performance.now() + 30_000;
  const mine = () => rx.arrivals.filter(match);
  while (new Set(mine().map((a) => a.webhookId)).size < expected && performance.now() < deadline) await sleep(20);
  return mine();
}

/** The first arrival of each webhook-id: what a deduplicating receiver sees. */
export function firstArrivals(arrivals: readonly Arrival[]): Map<string, Arrival> {
  const first = new Map<string, Arrival>();
  for (const a of arrivals) if (!first.has(a.webhookId)) first.set(a.webhookId, a);
  return first;
}
