/**
 * The checkout page in headless Chromium when things go sideways: a coupon that stops applying
 * when the selection changes, a coupon edited without Apply, an invalid inbox count, a prefill,
 * plans or coupon request that fails (429, 5xx, network: injected with page.route), the API's
 * 422 codes in the page's language, client checks as strict as the server's, a narrow screen, a
 * token in the fragment, a plan slug in capitals or unknown, and a coupon's duration.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page, Request, Route } from "playwright-core";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";
import { customers, openTab as openRecordingTab } from "../support/checkout-tab.ts";
import { launchChromium, type Browser } from "../../web/chromium.ts";
import { regexes } from "zod/v4/core";
import { email as serverEmail } from "../../shared/http/schemas/checkout.ts";
import { EMAIL, validEmail } from "../../web/src/email.ts";

const suffix = Math.random().toString(36).slice(2, 8);
let sandbox: Sandbox;
let browser: Browser;

beforeAll(async () => {
  [sandbox, browser] = await Promise.all([startTestSandbox("bre"), launchChromium()]);
});

afterAll(async () => {
  await browser?.close();
  await sandbox?.stop();
});

const base = () => sandbox.info.apiBase;
const WAIT = { timeout: 8_000 };

const customer = customers(suffix);

async function linkFor(body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${base()}/api/v1/public_checkout/link`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return ((await res.json()) as { url: string }).url;
}

const openTab = () => openRecordingTab(browser.context);

async function ready(page: Page, path: string): Promise<void> {
  await page.goto(`${base()}${path}`);
  await page.waitForSelector("body[data-ready]", WAIT);
}

const value = (page: Page, sel: string) => page.inputValue(sel);
const text = async (page: Page, sel: string) => ((await page.textContent(sel)) ?? "").trim();
const cents = async (page: Page) => Number(await page.getAttribute("#price-total", "data-cents"));
const discountShown = (page: Page) => page.isVisible("#price-discount");
const focused = (page: Page) => page.evaluate("document.activeElement.id") as Promise<string>;
const subscribes = (requests: Request[]) => requests.filter((r) => r.url().endsWith("/subscribe"));

async function fillAll(page: Page, c = customer(), account = "Padaria Lima"): Promise<void> {
  await page.fill("#f-name", c.name);
  await page.fill("#f-email", c.email);
  await page.fill("#f-phone", c.phone);
  await page.fill("#f-cnpj", c.cnpj);
  await page.fill("#f-account", account);
  await page.fill("#f-password", "pão-de-queijo-42");
}

async function apply(page: Page, code: string): Promise<void> {
  await page.fill("#f-coupon", code);
  await page.click("#coupon-apply");
  await expect.poll(() => text(page, "#coupon-status")).toBe(`Cupom ${code} aplicado.`);
}

const PRICE = { essencial: 14_900, profissional: 34_900 };

describe("the checkout page in Chromium, off the happy path", { timeout: 90_000 }, () => {
  it("checks an applied coupon again when the plan, cycle or inboxes change, drops it with the reason, and never submits it", async () => {
    const { page, requests } = await openTab();
    await ready(page, "/checkout?plan=profissional&cycle=monthly");
    await apply(page, "DESCONTO100");
    expect(await cents(page)).toBe(PRICE.profissional - 10_000);

    await page.check("#plan-essencial");
    await expect.poll(() => text(page, "#f-coupon-err")).toBe("Este cupom não vale para o plano ou ciclo escolhido.");
    expect(await text(page, "#coupon-status")).toBe("");
    expect(await discountShown(page)).toBe(false);
    expect(await cents(page)).toBe(PRICE.essencial);

    // Back to a plan it applies to: applied again.
    await page.check("#plan-profissional");
    await expect.poll(() => text(page, "#coupon-status")).toBe("Cupom DESCONTO100 aplicado.");
    expect(await text(page, "#f-coupon-err")).toBe("");
    expect(await cents(page)).toBe(PRICE.profissional - 10_000);

    // More inboxes: still applies, priced on the new count.
    await page.fill("#f-inboxes", "2");
    await expect.poll(() => cents(page)).toBe(PRICE.profissional + 2 * 2_900 - 10_000);
    expect(await text(page, "#coupon-status")).toBe("Cupom DESCONTO100 aplicado.");

    await page.check("#cycle-yearly");
    await expect.poll(() => text(page, "#f-coupon-err")).toBe("Este cupom não vale para o plano ou ciclo escolhido.");
    expect(await discountShown(page)).toBe(false);

    await fillAll(page);
    await page.click("#subscribe");
    await expect.poll(() => focused(page)).toBe("f-coupon");
    expect(await text(page, "#f-coupon-err")).toBe("Este cupom não vale para o plano ou ciclo escolhido.");
    expect(subscribes(requests)).toHaveLength(0);
    expect(await discountShown(page)).toBe(false);
    await page.close();
  });

  it("ignores a coupon reply that comes back after a newer choice", async () => {
    const { page } = await openTab();
    await ready(page, "/checkout?plan=profissional&cycle=monthly");
    await apply(page, "DESCONTO100");

    // The check for "yearly" (not applicable) answers late, after the visitor went back to monthly.
    await page.route("**/api/v1/public_checkout/coupon", async (route: Route) => {
      const body = JSON.parse(route.request().postData() ?? "{}") as { billing_cycle?: string };
      if (body.billing_cycle === "yearly") await new Promise((r) => setTimeout(r, 1_500));
      await route.continue().catch(() => undefined);
    });
    const slow = page.waitForRequest((r) => r.url().endsWith("/coupon") && (r.postData() ?? "").includes('"yearly"'));
    await page.check("#cycle-yearly");
    await slow;
    await page.check("#cycle-monthly");
    await page.waitForTimeout(2_000);

    expect(await text(page, "#coupon-status")).toBe("Cupom DESCONTO100 aplicado.");
    expect(await text(page, "#f-coupon-err")).toBe("");
    expect(await cents(page)).toBe(PRICE.profissional - 10_000);
    await page.close();
  });

  it("un-applies a coupon as soon as its code is edited; Subscribe checks a typed code first and subscribes with it when valid", async () => {
    const { page, requests } = await openTab();
    await ready(page, "/checkout?plan=profissional&cycle=monthly");
    await apply(page, "BEMVINDO15");
    expect(await discountShown(page)).toBe(true);

    await page.fill("#f-coupon", "BEMVINDO1");
    expect(await text(page, "#coupon-status")).toBe("");
    expect(await discountShown(page)).toBe(false);
    expect(await cents(page)).toBe(PRICE.profissional);

    await fillAll(page);
    await page.click("#subscribe");
    await expect.poll(() => text(page, "#f-coupon-err")).toBe("Cupom não encontrado.");
    expect(await focused(page)).toBe("f-coupon");
    expect(subscribes(requests)).toHaveLength(0);

    await page.fill("#f-coupon", "desconto100");
    expect(await text(page, "#f-coupon-err")).toBe("");
    await page.click("#subscribe");
    await page.waitForSelector("#success", WAIT);
    const sent = subscribes(requests);
    expect(sent).toHaveLength(1);
    expect((JSON.parse(sent[0]!.postData()!) as { coupon?: string }).coupon).toBe("DESCONTO100");
    const reply = (await (await sent[0]!.response())!.json()) as { subscription: { coupon: string; price: { discount: number } } };
    expect(reply.subscription.coupon).toBe("DESCONTO100");
    expect(reply.subscription.price.discount).toBe(10_000);
    await page.close();
  });

  it("does not submit with an invalid inbox count", async () => {
    const { page, requests } = await openTab();
    await ready(page, "/checkout?plan=essencial&inboxes=3");
    await fillAll(page);
    await page.fill("#f-inboxes", "150");
    expect(await text(page, "#f-inboxes-err")).not.toBe("");

    await page.click("#subscribe");
    await expect.poll(() => focused(page)).toBe("f-inboxes");
    expect(await text(page, "#notice")).toBe("Corrija os campos indicados.");
    await page.waitForTimeout(300);
    expect(subscribes(requests)).toHaveLength(0);
    await page.close();
  });

  for (const failure of ["429", "500", "network"] as const) {
    it(`keeps the token in memory after a prefill ${failure}: says so, tries again, fills the form without overwriting what was typed`, async () => {
      const c = customer();
      const url = await linkFor({ plan: "essencial", billing_cycle: "monthly", customer: c });
      const { page, requests } = await openTab();
      let calls = 0;
      await page.route("**/api/v1/public_checkout/prefill*", async (route: Route) => {
        calls += 1;
        if (calls > 1) return route.continue();
        if (failure === "network") return route.abort("internetdisconnected");
        if (failure === "429") return route.fulfill({ status: 429, headers: { "retry-after": "2", "content-type": "application/json" }, body: '{"error":"Too many requests","code":"rate_limited","retry_after":2}' });
        return route.fulfill({ status: 500, contentType: "application/json", body: '{"error":"Internal server error","code":"internal"}' });
      });
      await page.goto(url);
      await page.waitForSelector("body[data-ready]", WAIT);
      await page.waitForSelector("#prefill-status:not(:empty)", WAIT);

      expect(page.url()).not.toContain("token");
      const message = await text(page, "#prefill-status");
      if (failure === "429") expect(message).toContain("2 segundos");
      else expect(message).toMatch(/tente de novo/i);
      await page.fill("#f-name", "Fernanda L.");

      if (failure !== "429") await page.click("#prefill-retry");
      await page.waitForSelector("body[data-prefilled]", WAIT);
      expect(await value(page, "#f-name")).toBe("Fernanda L.");
      expect(await value(page, "#f-email")).toBe(c.email);
      expect(await value(page, "#f-cnpj")).toBe("12.ABC.345/01DE-35");
      expect(await text(page, "#prefill-status")).toBe("");
      expect(requests.filter((r) => r.url().includes("/prefill"))).toHaveLength(2);
      await page.close();
    });
  }

  it("reads the token from the fragment too, and removes it from the address bar before the first frame", async () => {
    const c = customer();
    const url = (await linkFor({ plan: "profissional", billing_cycle: "monthly", customer: c })).replace("&token=", "#token=");
    expect(url).toContain("#token=");
    const { page } = await openTab();
    await page.goto(url);
    await page.waitForSelector("body[data-prefilled]", WAIT);

    expect(await value(page, "#f-email")).toBe(c.email);
    expect(page.url()).toBe(`${base()}/checkout?plan=profissional&cycle=monthly&inboxes=0`);
    for (const href of (await page.evaluate("window.__seen")) as string[]) expect(href).not.toContain("token");
    await page.close();
  });

  it("offers to load the plans again after a 500, a 429 (saying when) or a network failure", async () => {
    for (const failure of ["500", "429", "network"] as const) {
      const { page } = await openTab();
      await page.route("**/api/v1/public_checkout/plans", (route: Route) =>
        failure === "network"
          ? route.abort("internetdisconnected")
          : failure === "429"
            ? route.fulfill({ status: 429, headers: { "retry-after": "90", "content-type": "application/json" }, body: '{"error":"Too many requests","code":"rate_limited","retry_after":90}' })
            : route.fulfill({ status: 500, contentType: "application/json", body: "{}" }),
      );
      await page.goto(`${base()}/checkout`);
      await page.waitForSelector("#plans-retry", WAIT);
      const message = await text(page, "#plans-error");
      expect(message).toContain("Não foi possível carregar os planos.");
      if (failure === "429") expect(message).toContain("2 minutos");

      await page.unroute("**/api/v1/public_checkout/plans");
      await page.click("#plans-retry");
      await page.waitForSelector("body[data-ready]", WAIT);
      expect(await page.isChecked("#plan-essencial")).toBe(true);
      expect(await page.$("#plans-error")).toBeNull();
      await page.close();
    }
  });

  it("shows a coupon's 429 or network failure at the coupon field, a long wait in minutes", async () => {
    const { page } = await openTab();
    await ready(page, "/checkout?plan=profissional");
    await page.route("**/api/v1/public_checkout/coupon", (route: Route) =>
      route.fulfill({ status: 429, headers: { "retry-after": "624", "content-type": "application/json" }, body: '{"error":"Too many requests","code":"rate_limited","retry_after":624}' }),
    );
    await page.fill("#f-coupon", "BEMVINDO15");
    await page.click("#coupon-apply");
    await expect.poll(() => text(page, "#f-coupon-err")).toBe("Muitas tentativas. Tente novamente em 11 minutos.");
    expect(await text(page, "#notice")).toBe("");

    await page.unroute("**/api/v1/public_checkout/coupon");
    await page.route("**/api/v1/public_checkout/coupon", (route: Route) => route.abort("internetdisconnected"));
    await page.click("#coupon-apply");
    await expect.poll(() => text(page, "#f-coupon-err")).toContain("Não foi possível falar com o servidor");
    expect(await text(page, "#notice")).toBe("");
    expect(await discountShown(page)).toBe(false);
    await page.close();
  });

  it("says the API's 422 codes in the page's language, the server's text only for a code it does not know", async () => {
    const { page } = await openTab();
    await ready(page, "/checkout?plan=profissional");
    await apply(page, "BEMVINDO15");
    await fillAll(page);
    const errors = [
      { field: "account_name", code: "blank", message: "can't be blank" },
      { field: "user.password", code: "too_short", message: "is too short (minimum is 8 characters)" },
      { field: "coupon", code: "exhausted", message: "has reached its maximum number of redemptions" },
      { field: "additional_inboxes", code: "too_small", message: "must be greater than or equal to 1" },
      { field: "customer.name", code: "something_new", message: "is something new" },
      { field: "plan", code: "inclusion", message: "is not a published plan" },
    ];
    await page.route("**/api/v1/public_checkout/subscribe", (route: Route) =>
      route.fulfill({ status: 422, contentType: "application/json", body: JSON.stringify({ message: "Validation failed", attributes: errors.map((e) => e.field), errors }) }),
    );
    await page.click("#subscribe");
    await page.waitForSelector("#f-account-err:not(:empty)", WAIT);

    expect(await text(page, "#f-account-err")).toBe("Preencha este campo.");
    expect(await text(page, "#f-password-err")).toBe("A senha deve ter de 8 a 128 caracteres.");
    expect(await text(page, "#f-coupon-err")).toBe("Este cupom atingiu o limite de usos.");
    expect(await text(page, "#f-inboxes-err")).toBe("Deve ser no mínimo 1.");
    expect(await text(page, "#f-name-err")).toBe("is something new");
    expect(await text(page, "#notice")).toContain("Plano: Escolha uma das opções.");
    // The coupon the API refused no longer discounts the price shown.
    expect(await text(page, "#coupon-status")).toBe("");
    expect(await discountShown(page)).toBe(false);
    expect(await cents(page)).toBe(PRICE.profissional);
    await page.close();
  });

  it("checks the password and e-mail as the server does (code points, only spaces, a real domain) before sending", async () => {
    const { page, requests } = await openTab();
    await ready(page, "/checkout?plan=essencial");
    await fillAll(page);

    await page.fill("#f-password", "😀😀😀😀"); // 8 UTF-16 units, 4 characters
    await page.click("#subscribe");
    await expect.poll(() => text(page, "#f-password-err")).toBe("A senha deve ter de 8 a 128 caracteres.");

    await page.fill("#f-password", "          ");
    await page.click("#subscribe");
    await expect.poll(() => text(page, "#f-password-err")).toBe("A senha não pode ter só espaços.");

    await page.fill("#f-password", "pão-de-queijo-42");
    await page.fill("#f-email", "ana@padaria.c");
    await page.click("#subscribe");
    await expect.poll(() => text(page, "#f-email-err")).toBe("Informe um e-mail válido.");
    await page.waitForTimeout(300);
    expect(subscribes(requests)).toHaveLength(0);

    // A code point count of 128 is accepted even when its UTF-16 length is not.
    await page.fill("#f-email", `ana.${suffix}@padaria.com.br`);
    await page.fill("#f-password", "😀".repeat(100));
    await page.click("#subscribe");
    await page.waitForSelector("#success", WAIT);
    await page.close();
  });

  it("holds the page's e-mail rule to the API's", () => {
    expect(EMAIL.source).toBe(regexes.email.source);
    const samples = ["ana@padaria.com.br", " Ana.Lima@Padaria.COM.BR ", "ana@padaria.c", "a@b.co", "ana@@padaria.com", "ana lima@padaria.com", ".ana@padaria.com", "ana..lima@padaria.com", `${"a".repeat(250)}@b.co`, "ana@padaria"];
    for (const s of samples) expect(validEmail(s), s).toBe(serverEmail.safeParse(s).success);
  });

  it("matches the plan slug whatever its case; an unknown plan selects the first and says so", async () => {
    const { page } = await openTab();
    await ready(page, "/checkout?plan=Profissional&cycle=Yearly");
    expect(await page.isChecked("#plan-profissional")).toBe(true);
    expect(await page.isChecked("#cycle-yearly")).toBe(true);
    expect(await text(page, "#plan-note")).toBe("");

    await ready(page, "/checkout?plan=ultra");
    expect(await page.isChecked("#plan-essencial")).toBe(true);
    expect(await text(page, "#plan-note")).toBe("O plano do link não está disponível; escolha um dos planos abaixo.");
    await page.close();
  });

  it("says how long a coupon's discount lasts", async () => {
    const { page } = await openTab();
    await ready(page, "/checkout?plan=profissional&cycle=monthly");
    await apply(page, "BEMVINDO15");
    expect(await text(page, "#price-discount-label")).toBe("Desconto (por 3 meses)");
    await apply(page, "DESCONTO100");
    expect(await text(page, "#price-discount-label")).toBe("Desconto (só no primeiro pagamento)");

    await ready(page, "/checkout?plan=profissional&cycle=monthly&coupon=BEMVINDO15&lang=en");
    await expect.poll(() => text(page, "#price-discount-label")).toBe("Discount (for 3 months)");
    await page.close();
  });
});
