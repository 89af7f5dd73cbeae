/**
 * The checkout page in headless Chromium against the sandbox, as a visitor meets it: a link made
 * through the API opens the page, the token leaves the address bar before the first paint, the
 * form fills, a coupon prices like the API, subscribing shows a key that works; plus replays,
 * errors, the quote form, both languages, accessibility, a 320-pixel screen and "nothing but its
 * own origin"; and the sandbox's demo site.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { customers, openTab as openRecordingTab } from "../support/checkout-tab.ts";
import { launchChromium, type Browser } from "../../web/chromium.ts";
import { checkoutRepo } from "../../shared/db/checkout-repo.ts";
import { createLink, TOKEN_TTL_SECONDS } from "../../shared/domain/checkout/checkout.ts";

const suffix = Math.random().toString(36).slice(2, 8);
const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
let sandbox: Sandbox;
let browser: Browser;

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([
    startTestSandbox("br"),
    launchChromium(),
  ]);
});

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
});

const base = () => sandbox.info.apiBase;
const post = async (path: string, body: unknown) =>
  fetch(`${base()}/api/v1/public_checkout/${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const customer = customers(suffix);

async function linkFor(body: Record<string, unknown>): Promise<string> {
  const res = await post("link", body);
  expect(res.status).toBe(201);
  return ((await res.json()) as { url: string }).url;
}

const openTab = () => openRecordingTab(browser.context);

const value = (page: Page, sel: string) => page.inputValue(sel);
const text = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? "").trim();

async function fillAccount(page: Page, c: ReturnType<typeof customer>, withCustomer: boolean): Promise<void> {
  if (withCustomer) {
    await page.fill("#f-name", c.name);
    await page.fill("#f-email", c.email);
    await page.fill("#f-phone", c.phone);
    await page.fill("#f-cnpj", c.cnpj);
  }
  await page.fill("#f-account", "Padaria Lima");
  await page.fill("#f-password", "pão-de-queijo-42");
}

describe("the checkout page in Chromium", { timeout: 90_000 }, () => {
  it("runs the whole flow: link → page (token gone before the first paint, prefill once) → coupon → subscribe → the key works", async () => {
    const c = customer();
    const url = await linkFor({ plan: "profissional", billing_cycle: "monthly", additional_inboxes: 2, customer: c });
    const token = new URL(url).searchParams.get("token")!;
    expect(token.length).toBeGreaterThan(20);
    const { page, requests } = await openTab();

    const doc = await page.goto(url);
    await page.waitForSelector("body[data-prefilled]");

    expect(doc!.headers()["referrer-policy"]).toBe("no-referrer");
    expect(doc!.headers()["content-security-policy"]).toContain("default-src 'none'");
    const seen = (await page.evaluate("window.__seen")) as string[];
    expect(seen.length).toBe(2);
    for (const href of seen) expect(href).not.toContain("token");
    expect(page.url()).not.toContain("token");
    expect(page.url()).toContain("plan=profissional");
    const prefills = requests.filter((r) => r.url().includes("/prefill"));
    expect(prefills).toHaveLength(1);
    expect((await prefills[0]!.allHeaders())["referer"] ?? "").toBe("");
    expect(await value(page, "#f-name")).toBe(c.name);
    expect(await value(page, "#f-email")).toBe(c.email);
    expect(await value(page, "#f-phone")).toBe("(31) 98765-4321");
    expect(await value(page, "#f-cnpj")).toBe("12.ABC.345/01DE-35");
    expect(await page.isChecked("#plan-profissional")).toBe(true);
    expect(await value(page, "#f-inboxes")).toBe("2");

    await page.fill("#f-coupon", "BEMVINDO15");
    await page.click("#coupon-apply");
    await page.waitForSelector("#coupon-status:not(:empty)");
    const api = (await (await post("coupon", { code: "BEMVINDO15", plan: "profissional", billing_cycle: "monthly", additional_inboxes: 2 })).json()) as {
      price: { total: number; discount: number };
    };
    expect(api.price.discount).toBeGreaterThan(0);
    expect(await page.getAttribute("#price-total", "data-cents")).toBe(String(api.price.total));

    await fillAccount(page, c, false);
    await page.click("#subscribe");
    await page.waitForSelector("#success");

    const key = await value(page, "#api-key");
    const accountId = await page.getAttribute("#success-account", "data-id");
    expect(await text(page, "#success-status")).toBe("Aguardando pagamento");
    const account = await fetch(`${base()}/api/v1/accounts/${accountId}`, { headers: { api_access_token: key } });
    expect(account.status).toBe(200);
    // The account speaks the page's language.
    expect((await account.json()) as { name: string; locale: string }).toMatchObject({ name: "Padaria Lima", locale: "pt_BR" });
    const origin = new URL(url).origin;
    for (const r of requests) expect(r.url().startsWith(`${origin}/`), r.url()).toBe(true);
    // The link itself and the one prefill carry the token; no other request does.
    const others = requests.filter((r) => r.url() !== url && !r.url().includes("/prefill"));
    expect(others.length).toBeGreaterThan(4);
    for (const r of others) expect(r.url()).not.toContain(token);
    const storage = (await page.evaluate("JSON.stringify([Object.entries(sessionStorage), Object.entries(localStorage)])")) as string;
    expect(storage).not.toContain(token);
    expect(storage).not.toContain(c.email);
    await page.close();
  });

  it("creates one account on a double click, and the same one again after a reload", async () => {
    const c = customer();
    const { page } = await openTab();
    const replies: { status: number; id: number; replayed: boolean }[] = [];
    page.on("response", async (r) => {
      if (!r.url().endsWith("/subscribe")) return;
      const body = (await r.json()) as { account?: { id: number } };
      replies.push({ status: r.status(), id: body.account?.id ?? 0, replayed: r.headers()["idempotent-replayed"] === "true" });
    });
    await page.goto(`${base()}/checkout?plan=essencial&cycle=yearly`);
    await page.waitForSelector("body[data-ready]");
    await fillAccount(page, c, true);

    await page.dblclick("#subscribe");
    await page.waitForSelector("#success");
    const first = Number(await page.getAttribute("#success-account", "data-id"));
    await page.reload();
    await page.waitForSelector("body[data-ready]");
    await fillAccount(page, c, true);
    await page.click("#subscribe");
    await page.waitForSelector("#success");

    expect(Number(await page.getAttribute("#success-account", "data-id"))).toBe(first);
    await expect.poll(() => replies.length).toBe(2);
    expect(replies.map((r) => r.id)).toEqual([first, first]);
    expect(replies[1]!.replayed).toBe(true);
    await page.close();
  });

  it("opens an empty form, with no error, for an unknown or an expired token, and still drops it from the address", async () => {
    // A link made 24 h + 1 min ago: its token is still stored but no longer valid.
    const past = new Date(Date.now() - (TOKEN_TTL_SECONDS + 60) * 1000);
    const old = await createLink({ catalog: checkoutRepo, tokens: checkoutRepo, pageUrl: `${base()}/checkout` }, { plan: "essencial", billing_cycle: "monthly", customer: { ...customer(), phone: null, cnpj: null } }, past);
    const expired = new URL(old.url).searchParams.get("token")!;

    for (const token of ["A".repeat(43), expired]) {
      const { page, requests } = await openTab();
      await page.goto(`${base()}/checkout?plan=essencial&cycle=monthly&token=${token}`);
      await page.waitForSelector("body[data-ready]");
      await expect.poll(() => requests.filter((r) => r.url().includes("/prefill")).length).toBe(1);
      const prefill = await requests.find((r) => r.url().includes("/prefill"))!.response();

      expect(prefill!.status()).toBe(404);
      expect(page.url()).toBe(`${base()}/checkout?plan=essencial&cycle=monthly`);
      for (const id of ["#f-name", "#f-email", "#f-phone", "#f-cnpj"]) expect(await value(page, id)).toBe("");
      expect(await text(page, "#notice")).toBe("");
      expect(await page.$$eval("[aria-invalid]", (els) => els.length)).toBe(0);
      await page.close();
    }
  });

  it("shows a taken e-mail at the e-mail field; a network failure and a 429 say what to do and keep what was typed", async () => {
    const c = { ...customer(), email: "admin@example.com" };
    const { page } = await openTab();
    await page.goto(`${base()}/checkout?plan=essencial`);
    await page.waitForSelector("body[data-ready]");
    await fillAccount(page, c, true);

    await page.click("#subscribe");
    await page.waitForSelector("#f-email-err:not(:empty)");
    expect(await text(page, "#f-email-err")).toBe("Este e-mail já está em uso.");
    expect(await page.getAttribute("#f-email", "aria-invalid")).toBe("true");

    await page.route("**/api/v1/public_checkout/subscribe", (route) => route.abort("internetdisconnected"));
    await page.fill("#f-email", `outra.${suffix}@padaria.com.br`);
    await page.click("#subscribe");
    await page.waitForSelector("#notice:not(:empty)");
    expect(await text(page, "#notice")).toContain("Não foi possível falar com o servidor");
    expect(await value(page, "#f-email")).toBe(`outra.${suffix}@padaria.com.br`);
    expect(await value(page, "#f-password")).toBe("pão-de-queijo-42");

    await page.unroute("**/api/v1/public_checkout/subscribe");
    await page.route("**/api/v1/public_checkout/subscribe", (route) =>
      route.fulfill({ status: 429, headers: { "retry-after": "17", "content-type": "application/json" }, body: '{"error":"Too many requests","code":"rate_limited","retry_after":17}' }),
    );
    await page.click("#subscribe");
    await expect.poll(() => text(page, "#notice")).toBe("Muitas tentativas. Tente novamente em 17 segundos.");
    expect(await value(page, "#f-cnpj")).toBe("12.ABC.345/01DE-35");
    await page.close();
  });

  it("checks the CNPJ (alphanumeric too) and the phone before sending", async () => {
    const { page, requests } = await openTab();
    await page.goto(`${base()}/checkout`);
    await page.waitForSelector("body[data-ready]");
    await fillAccount(page, customer(), true);

    await page.fill("#f-cnpj", "12abc34501de36");
    await page.fill("#f-phone", "(11) 1234");
    await page.click("#subscribe");

    expect(await value(page, "#f-cnpj")).toBe("12.ABC.345/01DE-36");
    expect(await text(page, "#f-cnpj-err")).toContain("CNPJ inválido");
    expect(await text(page, "#f-phone-err")).toContain("telefone");
    expect(requests.filter((r) => r.url().endsWith("/subscribe"))).toHaveLength(0);
    expect(await page.evaluate("document.activeElement.id")).toBe("f-phone");
    await page.close();
  });

  it("sends the custom-plan form (quote)", async () => {
    const { page } = await openTab();
    await page.goto(`${base()}/checkout`);
    await page.waitForSelector("body[data-ready]");

    await page.click("#custom summary");
    await page.fill("#q-name", "Rafael Souza");
    await page.fill("#q-email", `rafael.${suffix}@atacado.com.br`);
    await page.fill("#q-agents", "250");
    await page.fill("#q-message", "Precisamos de 40 caixas de entrada e SSO.");
    await page.click("#quote-send");

    await page.waitForSelector("#quote-sent");
    expect(await text(page, "#quote-sent")).toBe("Pedido recebido! Entraremos em contato em breve.");
    await page.close();
  });

  it("speaks pt-BR by default and English with ?lang=en or an English browser", async () => {
    const { page } = await openTab();
    await page.goto(`${base()}/checkout`);
    await page.waitForSelector("body[data-ready]");
    expect(await text(page, "h1")).toBe("Assine o Conversa");
    expect(await page.getAttribute("html", "lang")).toBe("pt-BR");

    await page.goto(`${base()}/checkout?lang=en`);
    await page.waitForSelector("body[data-ready]");
    expect(await text(page, "h1")).toBe("Subscribe to Conversa");
    expect(await page.getAttribute("html", "lang")).toBe("en");
    await page.close();

    const english = await launchChromium({ locale: "en-US" });
    try {
      const tab = await english.context.newPage();
      await tab.goto(`${base()}/checkout`);
      await tab.waitForSelector("body[data-ready]");
      expect(await text(tab, "h1")).toBe("Subscribe to Conversa");
      expect(await text(tab, "label[for=f-password]")).toBe("Password");
    } finally {
      await english.close();
    }
  });

  it("has no serious or critical axe-core violations and breaks no CSP rule", async () => {
    const { page } = await openTab();
    const consoleErrors: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error") consoleErrors.push(m.text());
    });
    await page.goto(`${base()}/checkout?plan=profissional&coupon=NAOEXISTE`);
    await page.waitForSelector("body[data-ready]");
    await page.waitForSelector("#f-coupon-err:not(:empty)");
    await page.click("#custom summary");

    await page.evaluate(AXE);
    const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
      violations: { id: string; impact: string; nodes: unknown[] }[];
    };

    const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.nodes.length})`);
    expect(bad).toEqual([]);
    expect(await text(page, "#f-coupon-err")).toBe("Cupom não encontrado.");
    expect(consoleErrors).toEqual([]);
    await page.close();
  });

  it("can be used with the keyboard alone: Tab reaches the fields in order and Enter subscribes", async () => {
    const c = customer();
    const { page } = await openTab();
    await page.goto(`${base()}/checkout?plan=essencial`);
    await page.waitForSelector("body[data-ready]");

    await page.focus("#f-name");
    const order: string[] = [];
    for (const v of [c.name, c.email, c.phone, c.cnpj, "Padaria Lima", "pão-de-queijo-42"]) {
      order.push((await page.evaluate("document.activeElement.id")) as string);
      await page.keyboard.type(v);
      await page.keyboard.press("Tab");
    }
    await page.focus("#f-password");
    await page.keyboard.press("Enter");
    await page.waitForSelector("#success");

    expect(order).toEqual(["f-name", "f-email", "f-phone", "f-cnpj", "f-account", "f-password"]);
    expect(await page.evaluate("document.activeElement.id")).toBe("h-success");
    await page.close();
  });

  it("is what the sandbox's demo site links to: plans listed, a link made with the customer, the page filled", async () => {
    const c = customer();
    const { page } = await openTab();
    await page.goto(`${base()}/`);
    await page.fill("#c-name", c.name);
    await page.fill("#c-email", c.email);

    await page.click("text=Assinar Profissional");
    await page.waitForURL(/\/checkout\?plan=profissional/);
    await page.waitForSelector("body[data-prefilled]");

    expect(page.url()).toBe(`${base()}/checkout?plan=profissional&cycle=monthly&inboxes=0`);
    expect(await value(page, "#f-email")).toBe(c.email);
    expect(await page.isChecked("#plan-profissional")).toBe(true);
    await page.close();
  });

  it("fits a 320-pixel screen, before and after success with a long account name without spaces", async () => {
    const { page } = await openTab();
    await page.setViewportSize({ width: 320, height: 900 });
    await page.goto(`${base()}/checkout?plan=empresarial&cycle=yearly&inboxes=100`);
    await page.waitForSelector("body[data-ready]");
    const scrollWidth = () => page.evaluate("document.documentElement.scrollWidth") as Promise<number>;
    expect(await scrollWidth()).toBeLessThanOrEqual(320);
    await page.click("#custom summary");
    expect(await scrollWidth()).toBeLessThanOrEqual(320);

    await fillAccount(page, customer(), true);
    await page.fill("#f-account", `PadariaEConfeitariaDaFernanda${"Lima".repeat(12)}`);
    await page.click("#subscribe");
    await page.waitForSelector("#success");
    expect(await scrollWidth()).toBeLessThanOrEqual(320);
    await page.setViewportSize({ width: 360, height: 900 });
    expect(await scrollWidth()).toBeLessThanOrEqual(360);
    await page.close();
  });

  it("demo site: prices for the chosen cycle, and a refused link's message instead of raw JSON", async () => {
    const { page } = await openTab();
    await page.goto(`${base()}/`);
    await page.waitForSelector("#plans li");
    expect(await text(page, "#plans li h2")).toMatch(/^Essencial: R\$\s149,00\/mês$/);
    await page.selectOption("#c-cycle", "yearly");
    await expect.poll(() => text(page, "#plans li h2")).toMatch(/^Essencial: R\$\s1\.490,00\/ano$/);

    await page.fill("#c-name", "Fernanda Lima");
    await page.fill("#c-email", "não-é-um-email");
    await page.click("text=Assinar Essencial");
    await page.waitForSelector("#error:not(:empty)");
    const error = await text(page, "#error");
    expect(error).not.toContain("{");
    expect(error).toContain("email is invalid");
    await page.close();
  });
});
