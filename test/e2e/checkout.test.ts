/**
 * The public checkout in the sandbox over real HTTP, as a marketing site uses it:
 * plans → link with customer (server side) → the URL has only opaque data → prefill (browser,
 * CORS) → coupon check → subscribe → the returned access_token calls an account endpoint.
 * Then the operator's admin commands against the same sandbox.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { runAdmin } from "../../tools/admin.ts";

const PAGE = "https://www.conversa.example/assinar";
const SITE = "https://www.conversa.example";
const suffix = Math.random().toString(36).slice(2, 8);
const dataDir = mkdtempSync(join(tmpdir(), "conversa-checkout-e2e-"));
let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox("e2e-co", {
    dataDir,
    env: { CHECKOUT_PAGE_URL: PAGE, CHECKOUT_ALLOWED_ORIGINS: SITE },
  });
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const base = () => sandbox.info.apiBase.replace("localhost", "127.0.0.1");
const call = (path: string, init: RequestInit = {}) =>
  fetch(`${base()}${path}`, {
    ...init,
    headers: { "content-type": "application/json", ...(init.headers as Record<string, string>) },
    signal: AbortSignal.timeout(10_000),
  });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) => call(path, { method: "POST", body: JSON.stringify(body), headers });

const customer = { name: "Fernanda Lima", email: "fernanda@padaria.com.br", phone: "+55 (31) 98765-4321", cnpj: "12.ABC.345/01DE-35" };

describe("public checkout in the sandbox", () => {
  it("runs the whole flow: plans, link, prefill, coupon, subscribe, then the key works", async () => {
    const plans = (await (await call("/api/v1/public_checkout/plans")).json()) as { plans: { slug: string; prices: { monthly: number } }[] };
    expect(plans.plans.map((p) => p.slug)).toEqual(["essencial", "profissional", "empresarial"]);

    const linkRes = await post("/api/v1/public_checkout/link", { plan: "profissional", billing_cycle: "monthly", additional_inboxes: 1, coupon: "BEMVINDO15", customer });
    expect(linkRes.status).toBe(201);
    const { url } = (await linkRes.json()) as { url: string };
    expect(url.startsWith(`${PAGE}?plan=profissional&cycle=monthly&inboxes=1&coupon=BEMVINDO15&token=`)).toBe(true);
    for (const form of ["Fernanda", "Lima", "fernanda", "padaria", "@", "%40", "98765", "5531987654321", "12ABC34501DE35", "12.ABC", "ABC.345"]) {
      expect(url, form).not.toContain(form);
    }
    const token = new URL(url).searchParams.get("token")!;

    const pre = await call(`/api/v1/public_checkout/prefill?token=${token}`, { headers: { origin: SITE } });
    expect(pre.status).toBe(200);
    expect(pre.headers.get("cache-control")).toBe("no-store");
    expect(pre.headers.get("access-control-allow-origin")).toBe(SITE);
    const { customer: prefilled } = (await pre.json()) as { customer: Record<string, string> };
    expect(prefilled).toEqual({ name: "Fernanda Lima", email: "fernanda@padaria.com.br", phone: "+5531987654321", cnpj: "12ABC34501DE35" });

    const couponRes = await post("/api/v1/public_checkout/coupon", { code: "BEMVINDO15", plan: "profissional", billing_cycle: "monthly", additional_inboxes: 1 });
    const checked = (await couponRes.json()) as { valid: boolean; price: { total: number } };
    expect(checked).toMatchObject({ valid: true, price: { currency: "BRL", subtotal: 37800, discount: 5670, total: 32130 } });

    const subRes = await post(
      "/api/v1/public_checkout/subscribe",
      {
        plan: "profissional",
        billing_cycle: "monthly",
        additional_inboxes: 1,
        coupon: "BEMVINDO15",
        account_name: "Padaria Lima",
        user: { name: prefilled["name"], email: `owner-${suffix}@padaria.com.br`, password: "pao-de-queijo-42" },
        customer: prefilled,
        token,
      },
      { "idempotency-key": `e2e-${suffix}` },
    );
    expect(subRes.status).toBe(201);
    const sub = (await subRes.json()) as { account: { id: number }; subscription: { status: string; price: { total: number } }; access_token: string };
    expect(sub.subscription.status).toBe("pending_payment");
    expect(sub.subscription.price.total).toBe(checked.price.total);

    const account = await call(`/api/v1/accounts/${sub.account.id}`, { headers: { api_access_token: sub.access_token } });
    expect(account.status).toBe(200);
    expect(await account.json()).toMatchObject({ id: sub.account.id, name: "Padaria Lima" });
    // The token's customer data is gone with the subscription.
    expect((await call(`/api/v1/public_checkout/prefill?token=${token}`)).status).toBe(404);
  });

  it("writes the operator events (a subscription, a quote) to the events folder, one JSON file each", async () => {
    const quote = await post("/api/v1/public_checkout/quote", { name: "Rita", email: `rita-${suffix}@grande.example`, message: "40 inboxes" });
    expect(quote.status).toBe(201);
    const quoteId = ((await quote.json()) as { quote: { id: number } }).quote.id;
    expect(sandbox.eventsDir).toBe(join(dataDir, "events"));
    const read = () =>
      (existsSync(sandbox.eventsDir) ? readdirSync(sandbox.eventsDir) : [])
        .filter((f) => f.endsWith(".json"))
        .map((f) => JSON.parse(readFileSync(join(sandbox.eventsDir, f), "utf8")) as { event: string; payload: Record<string, unknown> });
    let events = read();
    for (let i = 0; i < 100 && !events.some((e) => e.event === "quote_requested" && e.payload["id"] === String(quoteId)); i++) {
      await new Promise((r) => setTimeout(r, 100));
      events = read();
    }
    expect(events.find((e) => e.event === "quote_requested" && e.payload["id"] === String(quoteId))?.payload).toMatchObject({ name: "Rita", message: "40 inboxes" });
    // The subscription of the flow above is there too.
    expect(events.some((e) => e.event === "subscription_created")).toBe(true);
  });

  it("answers the CORS preflight the way API Gateway does", async () => {
    const ok = await call("/api/v1/public_checkout/subscribe", {
      method: "OPTIONS",
      headers: { origin: SITE, "access-control-request-method": "POST", "access-control-request-headers": "content-type,idempotency-key" },
    });
    const other = await call("/api/v1/public_checkout/subscribe", { method: "OPTIONS", headers: { origin: "https://evil.example", "access-control-request-method": "POST" } });

    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe(SITE);
    expect(ok.headers.get("access-control-allow-headers")).toBe("content-type,idempotency-key");
    expect(other.status).toBe(204);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
  });

  it("seeds the catalog: the fixed coupon applies, the expired one is reported expired", async () => {
    const fixed = await post("/api/v1/public_checkout/coupon", { code: "DESCONTO100", plan: "empresarial", billing_cycle: "monthly" });
    const expired = await post("/api/v1/public_checkout/coupon", { code: "BLACKFRIDAY25", plan: "essencial", billing_cycle: "yearly" });

    expect(await fixed.json()).toMatchObject({ valid: true, price: { subtotal: 89900, discount: 10000, total: 79900 } });
    expect(await expired.json()).toEqual({ valid: false, reason: "expired" });
  });

  it("prices a billing coupon on the demo account's subscription", async () => {
    const res = await post("/api/v1/accounts/" + sandbox.info.accountId + "/billing/coupon", { code: "DESCONTO100" }, { api_access_token: sandbox.info.adminApiKey });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ valid: true, price: { subtotal: 34900 + 2 * 2900, discount: 10000 } });
  });

  it("admin commands: put and list plans and coupons in the sandbox, with clear errors on bad files", async () => {
    const lines: string[] = [];
    const print = (l: string) => lines.push(l);
    const planFile = join(dataDir, "plans.json");
    const couponFile = join(dataDir, "coupons.json");
    const badFile = join(dataDir, "bad.json");
    writeFileSync(planFile, JSON.stringify({ plans: [{ slug: "startup", name: "Startup", prices: { monthly: 9900, yearly: 99000 }, included_inboxes: 1, additional_inbox_prices: { monthly: 4900, yearly: 49000 }, sort_order: 0 }] }));
    writeFileSync(couponFile, JSON.stringify({ code: "lancamento", kind: "percent", value: 20, max_redemptions: 10, duration: "once" }));
    writeFileSync(badFile, JSON.stringify([{ slug: "Bad Slug", name: "", prices: { monthly: "99" }, included_inboxes: 1 }]));

    await runAdmin(["plans:put", planFile, "--data-dir", dataDir], print);
    await runAdmin(["coupons:put", couponFile, "--data-dir", dataDir], print);
    await runAdmin(["plans:list", "--data-dir", dataDir], print);
    await runAdmin(["coupons:list", "--data-dir", dataDir], print);
    const bad = runAdmin(["plans:put", badFile, "--data-dir", dataDir], print);

    await expect(bad).rejects.toThrow(/plans item 1 \("Bad Slug"\): slug: must be lower-case.*\n.*name:.*\n.*prices\.monthly/s);
    const out = lines.join("\n");
    expect(out).toContain("1 plan(s) written to sandbox table");
    expect(out).toContain("1 coupon(s) written to sandbox table");
    expect(out).toMatch(/startup\s+Startup\s+true\s+R\$ 99\.00/);
    expect(out).toMatch(/LANCAMENTO\s+20%\s+once/);
    expect(out).toMatch(/BEMVINDO15\s+15%\s+3 months\s+.*\s1\/500/);
    const plans = (await (await call("/api/v1/public_checkout/plans")).json()) as { plans: { slug: string }[] };
    expect(plans.plans[0]!.slug).toBe("startup");
    const coupon = await post("/api/v1/public_checkout/coupon", { code: "lancamento", plan: "startup", billing_cycle: "monthly" });
    expect(await coupon.json()).toMatchObject({ valid: true, price: { subtotal: 9900, discount: 1980, total: 7920 } });
  });
});
