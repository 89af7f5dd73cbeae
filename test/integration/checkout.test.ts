/**
 * Public checkout (except subscribe) and the billing coupon against DynamoDB Local: plans,
 * links with 24-hour tokens, prefill (expiry with an injected clock), coupon checks, quote,
 * CORS and cache-control.
 */
import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { putRaw } from "../../shared/db/accounts-repo.ts";
import { checkoutRepo } from "../../shared/db/checkout-repo.ts";
import { db, mainTableName } from "../../shared/db/client.ts";
import { checkoutKeys } from "../../shared/db/keys.ts";
import { createLink, prefill, TOKEN_TTL_SECONDS } from "../../shared/domain/checkout/checkout.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { invoke } from "../support/api.ts";
import { customer, makeCatalog, scan } from "../support/checkout.ts";
import { makeAccount } from "../support/fixtures.ts";

const PAGE = "https://www.example.com.br/assinar";
const ORIGIN = "https://www.example.com.br";
process.env["CHECKOUT_PAGE_URL"] = PAGE;
process.env["CHECKOUT_ALLOWED_ORIGINS"] = `${ORIGIN},https://landing.example.com.br`;
resetConfig();

let cat: Awaited<ReturnType<typeof makeCatalog>>;

beforeAll(async () => {
  cat = await makeCatalog([{ kind: "percent", value: 10, max_redemptions: 0, duration: "once" }]);
});

describe("plans", () => {
  it("lists published plans only, in the documented shape", async () => {
    const res = await invoke("checkout.plans", { headers: { origin: ORIGIN } });

    expect(res.status).toBe(200);
    const slugs = res.json.plans.map((p: { slug: string }) => p.slug);
    expect(slugs).toContain(cat.plan.slug);
    expect(slugs).not.toContain(cat.hidden.slug);
    expect(res.json.plans.find((p: { slug: string }) => p.slug === cat.plan.slug)).toEqual({
      slug: cat.plan.slug,
      name: "Pro",
      description: "",
      currency: "BRL",
      prices: { monthly: 34900, yearly: 349000 },
      included_inboxes: 2,
      additional_inbox_prices: { monthly: 2900, yearly: 29000 },
      features: [],
    });
  });
});

describe("CORS on the public checkout routes", () => {
  it("echoes an allowed origin, and only an allowed one", async () => {
    const allowed = await invoke("checkout.plans", { headers: { origin: "https://landing.example.com.br" } });
    const other = await invoke("checkout.plans", { headers: { origin: "https://evil.example" } });

    expect(allowed.headers["access-control-allow-origin"]).toBe("https://landing.example.com.br");
    expect(allowed.headers["vary"]).toBe("origin");
    expect(other.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("carries the CORS headers on errors too", async () => {
    const res = await invoke("checkout.link", { headers: { origin: ORIGIN }, body: { plan: "nope", billing_cycle: "monthly" } });
    expect(res.status).toBe(422);
    expect(res.headers["access-control-allow-origin"]).toBe(ORIGIN);
  });

  it("does not add them to account routes", async () => {
    const acct = await makeAccount();
    const res = await invoke("accounts.show", { params: { account_id: acct.accountId }, key: acct.adminKey, headers: { origin: ORIGIN } });
    expect(res.headers["access-control-allow-origin"]).toBeUndefined();
  });
});

describe("link and prefill", () => {
  it("builds the URL on CHECKOUT_PAGE_URL with only opaque data, and prefill returns the customer", async () => {
    const res = await invoke("checkout.link", {
      body: { plan: cat.plan.slug, billing_cycle: "yearly", additional_inboxes: 3, coupon: cat.codes.percent.toLowerCase(), customer },
    });

    expect(res.status).toBe(201);
    const raw: string = res.json.url;
    expect(raw.startsWith(`${PAGE}?`)).toBe(true);
    // Every form of the customer's data, raw and URL-encoded (values long enough never to occur by chance in the token).
    const forms = ["Maria", "Silva", "maria@empresa", "empresa.com.br", "@", "%40", "(11)", "912345678", "5511912345678", "11.222.333", "11222333000181", "0001-81"];
    for (const form of forms) {
      expect(raw, form).not.toContain(form);
      expect(raw, form).not.toContain(encodeURIComponent(form));
    }
    const url = new URL(raw);
    expect([...url.searchParams.keys()]).toEqual(["plan", "cycle", "inboxes", "coupon", "token"]);
    expect(url.searchParams.get("plan")).toBe(cat.plan.slug);
    expect(url.searchParams.get("cycle")).toBe("yearly");
    expect(url.searchParams.get("inboxes")).toBe("3");
    expect(url.searchParams.get("coupon")).toBe(cat.codes.percent);
    const token = url.searchParams.get("token")!;
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(Buffer.from(token, "base64url").length * 8).toBeGreaterThanOrEqual(128);
    expect(res.json.price).toEqual({ currency: "BRL", subtotal: 349000 + 3 * 29000, discount: 65400, total: 436000 - 65400 });
    const expiresAt = Date.parse(res.json.expires_at);
    expect(Math.abs(expiresAt - (Date.now() + TOKEN_TTL_SECONDS * 1000))).toBeLessThan(10_000);

    const stored = (await scan("checkout_token")).find((i) => i["hash"] === sha256Hex(token));
    expect(stored?.["pk"]).toBe(`CHECKOUT_TOKEN#${sha256Hex(token)}`);
    expect(JSON.stringify(await scan("checkout_token"))).not.toContain(token);

    const pre = await invoke("checkout.prefill", { query: { token } });
    expect(pre.status).toBe(200);
    expect(pre.headers["cache-control"]).toBe("no-store");
    expect(pre.json).toEqual({
      customer: { name: "Maria Silva", email: "maria@empresa.com.br", phone: "+5511912345678", cnpj: "11222333000181" },
      expires_at: res.json.expires_at,
    });
  });

  it("builds a link without a customer: no token, no expiry", async () => {
    const res = await invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly" } });
    expect(res.status).toBe(201);
    expect(res.json.url).toBe(`${PAGE}?plan=${cat.plan.slug}&cycle=monthly&inboxes=0`);
    expect(res.json.expires_at).toBeUndefined();
  });

  it("accepts an alphanumeric CNPJ and a partial customer (name, e-mail)", async () => {
    const withAlnum = await invoke("checkout.link", {
      body: { plan: cat.plan.slug, billing_cycle: "monthly", customer: { name: "B", email: "b@c.com", cnpj: "12.abc.345/01de-35" } },
    });
    const token = new URL(withAlnum.json.url).searchParams.get("token")!;
    const pre = await invoke("checkout.prefill", { query: { token } });
    expect(pre.json.customer).toEqual({ name: "B", email: "b@c.com", phone: null, cnpj: "12ABC34501DE35" });
  });

  it("reads null in an optional field as absent, as Rails reads nil", async () => {
    const res = await invoke("checkout.link", {
      body: { plan: cat.plan.slug, billing_cycle: "monthly", additional_inboxes: null, coupon: null, customer: { name: "N", email: "n@c.com", phone: null, cnpj: null } },
    });
    expect(res.status).toBe(201);
    const token = new URL(res.json.url).searchParams.get("token")!;
    expect((await invoke("checkout.prefill", { query: { token } })).json.customer).toEqual({ name: "N", email: "n@c.com", phone: null, cnpj: null });
    const bare = await invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly", customer: null } });
    expect([bare.status, bare.json.expires_at]).toEqual([201, undefined]);
    // A blank one too (an empty form input).
    const blank = await invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly", coupon: " ", additional_inboxes: "" } });
    expect([blank.status, blank.json.url]).toEqual([201, `${PAGE}?plan=${cat.plan.slug}&cycle=monthly&inboxes=0`]);
    const quote = await invoke("checkout.quote", { body: { name: "Q", email: "q@x.com", phone: null, company: null, cnpj: null, inboxes: null, agents: null, message: "hi" } });
    expect(quote.status).toBe(201);
    const check = await invoke("checkout.coupon", { body: { code: cat.codes.percent, plan: cat.plan.slug, billing_cycle: "monthly", additional_inboxes: null } });
    expect(check.status).toBe(200);
  });

  it("422s naming the field", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ plan: "unknown" }, "plan", "inclusion"],
      [{ plan: cat.hidden.slug }, "plan", "inclusion"],
      [{ coupon: cat.codes.expired }, "coupon", "expired"],
      [{ coupon: cat.extra[0] }, "coupon", "exhausted"],
      [{ additional_inboxes: 101 }, "additional_inboxes", "too_big"],
      [{ customer: { ...customer, cnpj: "12.ABC.345/01DE-36" } }, "customer.cnpj", "invalid"],
      [{ customer: { ...customer, cnpj: "00.000.000/0000-00" } }, "customer.cnpj", "invalid"],
      [{ customer: { ...customer, phone: "+1 415 555 0100" } }, "customer.phone", "invalid"],
      [{ customer: { ...customer, email: "maria@" } }, "customer.email", "invalid"],
      [{ customer: { ...customer, name: " " } }, "customer.name", "blank"],
      [{ customer: { ...customer, name: "\u200b\u2060\ufeff" } }, "customer.name", "blank"],
    ];
    for (const [over, field, code] of cases) {
      const res = await invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly", ...over } });
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(res.json.attributes, JSON.stringify(over)).toEqual([field]);
      expect(res.json.errors[0].code, JSON.stringify(over)).toBe(code);
    }
  });

  it("prefill: 404 for unknown and malformed tokens, with no-store", async () => {
    for (const token of ["A".repeat(32), "short", "../../etc", ""]) {
      const res = await invoke("checkout.prefill", { query: { token } });
      expect(res.status, token).toBe(404);
      expect(res.headers["cache-control"]).toBe("no-store");
    }
    expect((await invoke("checkout.prefill", {})).status).toBe(404);
  });

  it("token expiry (injected clock): valid until now + 24 h, 404 from then on although the item still exists", async () => {
    const t0 = new Date("2026-11-21T12:00:00Z");
    const link = await createLink({ catalog: checkoutRepo, tokens: checkoutRepo, pageUrl: PAGE }, { plan: cat.plan.slug, billing_cycle: "monthly", customer: { ...customer, phone: null, cnpj: null } }, t0);
    const token = new URL(link.url).searchParams.get("token")!;
    const justBefore = new Date(t0.getTime() + TOKEN_TTL_SECONDS * 1000 - 1000);
    const atExpiry = new Date(t0.getTime() + TOKEN_TTL_SECONDS * 1000);

    const before = await prefill(checkoutRepo, token, justBefore);
    await expect(prefill(checkoutRepo, token, atExpiry)).rejects.toMatchObject({ status: 404 });

    expect(before.customer.name).toBe("Maria Silva");
    expect(link.expires_at).toBe("2026-11-22T12:00:00.000Z");
    expect(await checkoutRepo.getToken(sha256Hex(token))).toBeDefined();
  });

  it("prefill over HTTP: 404 once expiresAt has passed even though DynamoDB still holds the item", async () => {
    const link = await invoke("checkout.link", { body: { plan: cat.plan.slug, billing_cycle: "monthly", customer } });
    const token = new URL(link.json.url).searchParams.get("token")!;
    await db().send(
      new UpdateCommand({
        TableName: mainTableName(),
        Key: checkoutKeys.checkoutToken(sha256Hex(token)),
        UpdateExpression: "SET expiresAt = :past",
        ExpressionAttributeValues: { ":past": Math.floor(Date.now() / 1000) - 1 },
      }),
    );

    const res = await invoke("checkout.prefill", { query: { token } });

    expect(res.status).toBe(404);
    expect(await checkoutRepo.getToken(sha256Hex(token))).toBeDefined();
  });
});

describe("coupon check", () => {
  const check = (body: Record<string, unknown>) => invoke("checkout.coupon", { body: { plan: cat.plan.slug, billing_cycle: "monthly", ...body } });

  it("prices a valid coupon with the shared function (percent half-up, fixed)", async () => {
    const pct = await check({ code: cat.codes.percent, additional_inboxes: 1 });
    const fixed = await check({ code: ` ${cat.codes.fixed.toLowerCase()} ` });

    expect(pct.status).toBe(200);
    expect(pct.json).toEqual({
      valid: true,
      coupon: { code: cat.codes.percent, kind: "percent", value: 15, currency: "BRL", duration: "repeating", duration_months: 3, valid_until: null },
      price: { currency: "BRL", subtotal: 37800, discount: 5670, total: 32130 },
    });
    expect(fixed.json.price).toEqual({ currency: "BRL", subtotal: 34900, discount: 5000, total: 29900 });
  });

  it("answers valid:false with the reason", async () => {
    expect((await check({ code: "DOES-NOT-EXIST" })).json).toEqual({ valid: false, reason: "not_found" });
    expect((await check({ code: cat.codes.expired })).json).toEqual({ valid: false, reason: "expired" });
    expect((await check({ code: cat.codes.fixed, billing_cycle: "yearly" })).json).toEqual({ valid: false, reason: "not_applicable" });
    expect((await check({ code: cat.extra[0] })).json).toEqual({ valid: false, reason: "exhausted" });
  });

  it("422s for an unknown plan", async () => {
    const res = await check({ code: cat.codes.percent, plan: "nope" });
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["plan"]);
  });
});

describe("quote", () => {
  it("stores the quote and writes quote_requested to the outbox in one transaction", async () => {
    const res = await invoke("checkout.quote", {
      body: { name: "João", email: "JOAO@Grande.com.br", phone: "+55 (21) 3456-7890", company: "Grande SA", cnpj: "11222333000181", inboxes: 40, agents: 120, message: "Need 40 inboxes" },
    });

    expect(res.status).toBe(201);
    expect(res.json).toEqual({ quote: { id: expect.any(Number), status: "received", created_at: expect.any(Number) } });
    const quote = (await scan("quote")).find((q) => q["id"] === res.json.quote.id);
    expect(quote).toMatchObject({ email: "joao@grande.com.br", phone: "+552134567890", cnpj: "11222333000181", inboxes: 40 });
    const event = (await scan("outbox")).find((e) => e["event"] === "quote_requested" && JSON.parse(String(e["payload"])).id === String(res.json.quote.id));
    expect(event).toBeDefined();
  });

  it("422s on a missing message and a bad phone", async () => {
    const res = await invoke("checkout.quote", { body: { name: "J", email: "j@x.com", phone: "123" } });
    expect(res.status).toBe(422);
    expect(res.json.attributes.sort()).toEqual(["message", "phone"]);
  });
});

describe("billing coupon", () => {
  it("prices the coupon on the account's current subscription", async () => {
    const acct = await makeAccount();
    await putRaw({
      ...checkoutKeys.subscription(acct.accountId),
      entity: "subscription",
      id: 9001,
      account_id: acct.accountId,
      status: "active",
      plan: cat.plan.slug,
      billing_cycle: "monthly",
      additional_inboxes: 4,
      coupon: null,
      price: { currency: "BRL", subtotal: 46500, discount: 0, total: 46500 },
      customer,
      created_at: 1,
    });

    const pct = await invoke("billing.coupon", { params: { account_id: acct.accountId }, key: acct.adminKey, body: { code: cat.codes.percent } });
    const yearlyOnlyNot = await invoke("billing.coupon", { params: { account_id: acct.accountId }, key: acct.adminKey, body: { code: cat.codes.fixed } });

    expect(pct.status).toBe(200);
    expect(pct.json.price).toEqual({ currency: "BRL", subtotal: 34900 + 4 * 2900, discount: 6975, total: 46500 - 6975 });
    expect(yearlyOnlyNot.json.valid).toBe(true);
    expect(yearlyOnlyNot.json.price.discount).toBe(5000);
  });

  it("422s when the account has no subscription", async () => {
    const acct = await makeAccount();
    const res = await invoke("billing.coupon", { params: { account_id: acct.accountId }, key: acct.adminKey, body: { code: cat.codes.percent } });
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["subscription"]);
  });
});
