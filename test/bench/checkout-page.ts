/**
 * Checkout page benchmark (`npm run bench:checkout-page`), not a test: what the page weighs and
 * how soon a visitor sees a filled form.
 *
 * 1. bytes of the HTML, CSS and JavaScript the page loads, raw and gzipped (zlib level 6, what a
 *    CDN or a browser-facing proxy typically uses), against the goal of 35 KB gzipped in all;
 * 2. in headless Chromium against an in-memory sandbox (its own DynamoDB Local): the time from
 *    navigation start to the form filled from the link's token (prefill answered and written into
 *    the fields), read from the page's own clock, with an empty HTTP cache (a first visit) and
 *    with the hashed files cached (a returning visitor); and without a token, to the form ready;
 *    plus when the later of the page's two API replies (plans, prefill) had arrived, which is
 *    where most of the time goes.
 * Figures vary with the shared machine; they are reported, never asserted.
 * Prints a table and writes docs/bench/checkout-page.json.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { ROOT } from "../../infra/build.ts";
import { startSandbox } from "../../infra/local/sandbox.ts";
import { buildWebAssets } from "../../web/build.ts";
import { launchChromium } from "../../web/chromium.ts";

process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";
const OUT_FILE = join(ROOT, "docs", "bench", "checkout-page.json");
const RUNS = Number(process.env["BENCH_RUNS"] ?? 15);
const GOAL_GZIP_BYTES = 35 * 1024;
const GOAL_FILLED_MS = 300;

// ---------------------------------------------------------------- 1. bytes
const assets = await buildWebAssets();
const files = [["checkout.html", assets.page.body] as const, ...Object.entries(assets.files).map(([n, f]) => [n, f.body] as const)];
const sizes = files.map(([name, body]) => ({ name, bytes: Buffer.byteLength(body), gzipBytes: gzipSync(body, { level: 6 }).length }));
const totalGzip = sizes.reduce((s, f) => s + f.gzipBytes, 0);
const totalRaw = sizes.reduce((s, f) => s + f.bytes, 0);

// ---------------------------------------------------------------- 2. time to a filled form
interface Timing {
  readonly name: string;
  readonly runs: number;
  readonly medianMs: number;
  readonly p90Ms: number;
  readonly minMs: number;
  readonly maxMs: number;
}

const stat = (name: string, xs: number[]): Timing => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { name, runs: s.length, medianMs: Math.round(at(0.5)), p90Ms: Math.round(at(0.9)), minMs: Math.round(s[0]!), maxMs: Math.round(s[s.length - 1]!) };
};

// When the page marks itself filled (or ready), on its own clock (0 = navigation start).
const MARKER = `
  window.__marks = {};
  new MutationObserver(() => {
    for (const k of ["ready", "prefilled"]) if (document.body && document.body.dataset[k] && !window.__marks[k]) window.__marks[k] = performance.now();
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["data-ready", "data-prefilled"] });
`;

const sandbox = await startSandbox({ port: 0 });
const browser = await launchChromium();
const timings: Timing[] = [];
try {
  const base = sandbox.info.apiBase;
  let n = 0;
  const link = async (): Promise<string> => {
    const res = await fetch(`${base}/api/v1/public_checkout/link`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        plan: "profissional",
        billing_cycle: "monthly",
        additional_inboxes: 1,
        customer: { name: "Fernanda Lima", email: `bench.${++n}@padaria.com.br`, phone: "(31) 98765-4321", cnpj: "12.ABC.345/01DE-35" },
      }),
    });
    return ((await res.json()) as { url: string }).url;
  };
  const page = await browser.context.newPage();
  await page.addInitScript(MARKER);
  const cdp = await browser.context.newCDPSession(page);
  const visit = async (url: string, mark: "prefilled" | "ready", coldCache: boolean): Promise<number> => {
    if (coldCache) await cdp.send("Network.clearBrowserCache");
    await page.goto(url);
    await page.waitForSelector(`body[data-${mark}]`);
    // Where the time goes: when the later of the page's two API replies (plans, prefill) ended.
    api.push((await page.evaluate(
      `Math.max(...performance.getEntriesByType("resource").filter((e) => /public_checkout\\/(plans|prefill)/.test(e.name)).map((e) => e.responseEnd))`,
    )) as number);
    return (await page.evaluate(`window.__marks.${mark}`)) as number;
  };
  const api: number[] = [];
  // Warm-up: the sandbox loads the page function and builds the files on the first request.
  for (let i = 0; i < 3; i++) await visit(await link(), "prefilled", true);

  const cold: number[] = [];
  const warm: number[] = [];
  const bare: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    cold.push(await visit(await link(), "prefilled", true));
    warm.push(await visit(await link(), "prefilled", false));
    bare.push(await visit(`${base}/checkout?plan=essencial`, "ready", false));
  }
  api.splice(0, 3);
  timings.push(stat("filled from a token, empty cache", cold), stat("filled from a token, files cached", warm), stat("ready, no token, files cached", bare), stat("(of which: API replies in, all runs)", api));
} finally {
  await browser.close();
  await sandbox.stop();
}

// ---------------------------------------------------------------- report
const kb = (b: number) => (b / 1024).toFixed(1);
const lines = [
  "file                         raw KB   gzip KB",
  ...sizes.map((s) => `${s.name.padEnd(26)} ${kb(s.bytes).padStart(8)} ${kb(s.gzipBytes).padStart(9)}`),
  `${"total".padEnd(26)} ${kb(totalRaw).padStart(8)} ${kb(totalGzip).padStart(9)}   (goal <= ${kb(GOAL_GZIP_BYTES)} KB gzipped: ${totalGzip <= GOAL_GZIP_BYTES ? "met" : "NOT met"})`,
  "",
  `navigation -> form (${RUNS} runs)          median    p90    min    max  (ms)`,
  ...timings.map((t) => `${t.name.padEnd(36)} ${String(t.medianMs).padStart(6)} ${String(t.p90Ms).padStart(6)} ${String(t.minMs).padStart(6)} ${String(t.maxMs).padStart(6)}`),
  `(goal: filled <= ${GOAL_FILLED_MS} ms)`,
];
console.log(lines.join("\n"));

await mkdir(join(ROOT, "docs", "bench"), { recursive: true });
await writeFile(
  OUT_FILE,
  `${JSON.stringify(
    {
      generatedAt: new Date().toISOString(),
      node: process.version,
      machine: { cores: cpus().length, cpu: cpus()[0]?.model ?? "unknown" },
      browser: "Debian chromium, headless (playwright-core)",
      goals: { gzipBytes: GOAL_GZIP_BYTES, filledMs: GOAL_FILLED_MS },
      files: sizes,
      total: { bytes: totalRaw, gzipBytes: totalGzip },
      timings,
    },
    null,
    2,
  )}\n`,
);
console.log(`\nwrote ${OUT_FILE}`);
