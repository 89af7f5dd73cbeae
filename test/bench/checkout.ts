/**
 * Checkout benchmark (`npm run bench:checkout`): the public checkout endpoints over HTTP in an
 * in-memory sandbox (its own DynamoDB Local), with autocannon, and subscribe under contention.
 * Figures are compared as ratios within one run (shared, noisy machine), never asserted.
 *
 * 1. throughput/latency of plans, coupon, prefill and link (10 connections, 5 s each);
 * 2. subscribe, sequentially, without and with Idempotency-Key (the key adds a scrypt-derived
 *    seal of the reply), and a replay of the same key;
 * 3. 20 concurrent subscribes on a coupon with 5 redemptions vs an unlimited one (transaction
 *    conflicts on the coupon item are retried: what does the race cost?).
 * Prints a table and writes docs/bench/checkout.json.
 */
import autocannon from "autocannon";
import { loopbackApiBase, withSandbox } from "./lib/sandbox.ts";
import { putCoupon } from "../../shared/db/catalog-repo.ts";
import { couponSchema } from "../../shared/domain/checkout/catalog.ts";
import { cores, cpuModel, writeResult } from "./lib/output.ts";
import { quantile, round } from "./lib/stats.ts";
import { formatTable } from "./lib/table.ts";

const DURATION_S = Number(process.env["BENCH_DURATION"] ?? 5);
const SUBSCRIBES = 12;

const customer = { name: "Maria Silva", email: "maria@empresa.com.br", phone: "(11) 91234-5678", cnpj: "12.ABC.345/01DE-35" };
let seq = 0;
const subscribeBody = (over: Record<string, unknown> = {}) => ({
  plan: "profissional",
  billing_cycle: "monthly",
  additional_inboxes: 1,
  account_name: "Bench Ltda",
  user: { name: "Bench", email: `bench-${process.pid}-${++seq}@example.com`, password: "bench-password-1" },
  customer,
  ...over,
});

interface Row {
  readonly name: string;
  readonly requests: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly errors: number;
  readonly note?: string;
}

/** Latency figures to one decimal: nearest-rank p50 and p99. */
const p50p99 = (times: readonly number[]) => ({ p50Ms: round(quantile(times, 0.5), 1), p99Ms: round(quantile(times, 0.99), 1) });

const post = async (base: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
  const t0 = performance.now();
  const res = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body), signal: AbortSignal.timeout(30_000) });
  const json = (await res.json()) as Record<string, unknown>;
  return { status: res.status, json, ms: performance.now() - t0 };
};

async function cannon(base: string, name: string, opts: { path: string; method?: "GET" | "POST"; body?: unknown }): Promise<Row> {
  const run = (duration: number) =>
    autocannon({
      url: `${base}${opts.path}`,
      method: opts.method ?? "GET",
      connections: 10,
      duration,
      headers: { "content-type": "application/json", origin: "https://www.example.com.br" },
      ...(opts.body ? { body: JSON.stringify(opts.body) } : {}),
    });
  await run(1); // warm-up: module import, JIT, DynamoDB Local's JVM
  const r = await run(DURATION_S);
  return { name, requests: r.requests.total, reqPerSec: round(r.requests.average, 1), p50Ms: r.latency.p50, p99Ms: r.latency.p99, errors: r.errors + r.non2xx };
}

async function sequential(name: string, make: () => Promise<{ status: number; ms: number }>, n: number, note?: string): Promise<Row> {
  const times: number[] = [];
  let errors = 0;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const r = await make();
    times.push(r.ms);
    if (r.status !== 201) errors++;
  }
  const wall = (performance.now() - t0) / 1000;
  return { name, requests: n, reqPerSec: round(n / wall, 1), ...p50p99(times), errors, ...(note ? { note } : {}) };
}

async function race(base: string, name: string, code: string | undefined): Promise<Row> {
  const t0 = performance.now();
  const replies = await Promise.all(Array.from({ length: 20 }, () => post(base, "/api/v1/public_checkout/subscribe", subscribeBody(code ? { coupon: code } : {}))));
  const wall = performance.now() - t0;
  const ok = replies.filter((r) => r.status === 201).length;
  const exhausted = replies.filter((r) => r.status === 422).length;
  const times = replies.map((r) => r.ms);
  return { name, requests: 20, reqPerSec: round(20 / (wall / 1000), 1), ...p50p99(times), errors: 20 - ok - exhausted, note: `${ok} created, ${exhausted} exhausted (422), wall ${Math.round(wall)} ms` };
}

/** Every scenario, in order, against the sandbox at `base`. */
async function measure(base: string): Promise<Row[]> {
  const rows: Row[] = [];
  const link = await post(base, "/api/v1/public_checkout/link", { plan: "profissional", billing_cycle: "monthly", customer });
  const token = new URL(String(link.json["url"])).searchParams.get("token")!;

  rows.push(await cannon(base, "GET plans", { path: "/api/v1/public_checkout/plans" }));
  rows.push(await cannon(base, "POST coupon", { path: "/api/v1/public_checkout/coupon", method: "POST", body: { code: "BEMVINDO15", plan: "profissional", billing_cycle: "monthly", additional_inboxes: 2 } }));
  rows.push(await cannon(base, "GET prefill", { path: `/api/v1/public_checkout/prefill?token=${token}` }));
  rows.push(await cannon(base, "POST link (customer)", { path: "/api/v1/public_checkout/link", method: "POST", body: { plan: "profissional", billing_cycle: "yearly", coupon: "BEMVINDO15", customer } }));

  rows.push(await sequential("subscribe", () => post(base, "/api/v1/public_checkout/subscribe", subscribeBody()), SUBSCRIBES));
  let k = 0;
  rows.push(await sequential("subscribe + Idempotency-Key", () => post(base, "/api/v1/public_checkout/subscribe", subscribeBody(), { "idempotency-key": `bench-${process.pid}-${++k}` }), SUBSCRIBES));
  const replayBody = subscribeBody();
  await post(base, "/api/v1/public_checkout/subscribe", replayBody, { "idempotency-key": `bench-replay-${process.pid}` });
  rows.push(await sequential("subscribe replay (same key)", () => post(base, "/api/v1/public_checkout/subscribe", replayBody, { "idempotency-key": `bench-replay-${process.pid}` }), SUBSCRIBES));

  await putCoupon(couponSchema().parse({ code: "BENCHLIMITED", kind: "percent", value: 10, max_redemptions: 5, duration: "once" }));
  await putCoupon(couponSchema().parse({ code: "BENCHUNLIMITED", kind: "percent", value: 10, duration: "once" }));
  rows.push(await race(base, "20 concurrent, coupon max 5", "BENCHLIMITED"));
  rows.push(await race(base, "20 concurrent, unlimited coupon", "BENCHUNLIMITED"));
  rows.push(await race(base, "20 concurrent, no coupon", undefined));
  return rows;
}

const rows = await withSandbox({ port: 0, env: { CHECKOUT_ALLOWED_ORIGINS: "https://www.example.com.br" } }, (sandbox) => measure(loopbackApiBase(sandbox)));

const plans = rows[0]!;
const subscribe = rows.find((r) => r.name === "subscribe")!;
const header = ["scenario", "requests", "req/s", "p50 ms", "p99 ms", "errors", "p50 vs ref", "note"];
const table = rows.map((r) => {
  const ref = r.name.startsWith("GET") || r.name.startsWith("POST") ? plans : subscribe;
  return [r.name, String(r.requests), String(r.reqPerSec), String(r.p50Ms), String(r.p99Ms), String(r.errors), `${round(r.p50Ms / Math.max(ref.p50Ms, 0.1), 1)}x ${ref === plans ? "plans" : "subscribe"}`, r.note ?? ""];
});
console.log(formatTable(header, table, { trimEnd: true }));
console.log("");
await writeResult("checkout", { generatedAt: new Date().toISOString(), node: process.version, machine: { cores: cores(), cpu: cpuModel() }, durationSeconds: DURATION_S, rows });

