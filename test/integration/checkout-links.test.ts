/**
 * Public checkout use cases against DynamoDB Local, called with explicit instants: the display
 * order of the plans, what a link stores under its token and for how long, which tokens prefill
 * refuses, the 422 messages on plan and coupon, and the stored quote with its operator event.
 *
 * Each test loads the checkout modules afresh (vi.resetModules + import), so what they compute
 * when they load (the token lifetime and form, the coupon messages) is computed inside the test
 * that checks it.
 */
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { putPlan } from "../../shared/db/catalog-repo.ts";
import { sha256Hex } from "../../shared/domain/secrets.ts";
import { failure, makeCatalog, plan, scan } from "../support/checkout.ts";

const PAGE = "https://www.example.com.br/assinar";
/** A customer as the request schema hands it over (phone in E.164, CNPJ without separators). */
const customer = { name: "Maria Silva", email: "maria@empresa.com.br", phone: "+5511912345678", cnpj: "11222333000181" };

let cat: Awaited<ReturnType<typeof makeCatalog>>;

beforeAll(async () => {
  cat = await makeCatalog([{ kind: "percent", value: 10, max_redemptions: 0, duration: "once" }]);
});

beforeEach(() => {
  vi.resetModules();
});

async function load() {
  const checkout = await import("../../shared/domain/checkout/checkout.ts");
  const { checkoutRepo } = await import("../../shared/db/checkout-repo.ts");
  return { ...checkout, repo: checkoutRepo, deps: { catalog: checkoutRepo, tokens: checkoutRepo, pageUrl: PAGE } };
}

const unix = (d: Date) => Math.floor(d.getTime() / 1000);

describe("plans", () => {
  it("lists the published plans in display order: sort_order, then monthly price, then slug", async () => {
    const { listPublishedPlans, repo } = await load();
    const t = `${cat.tag}o`;
    // Written in slug order, which is not the display order.
    const defs = [
      { slug: `a4-${t}`, sort_order: 2, monthly: 100 },
      { slug: `b0-${t}`, sort_order: 1, monthly: 500, published: false },
      { slug: `m5-${t}`, sort_order: 0, monthly: 20000 },
      { slug: `x3-${t}`, sort_order: 1, monthly: 9000 },
      { slug: `y2-${t}`, sort_order: 1, monthly: 500 },
      { slug: `z1-${t}`, sort_order: 1, monthly: 500 },
    ];
    for (const d of defs) {
      await putPlan(plan({ slug: d.slug, sort_order: d.sort_order, prices: { monthly: d.monthly, yearly: d.monthly * 10 }, published: d.published ?? true }));
    }

    const listed = (await listPublishedPlans(repo)).map((p) => p.slug);

    expect(listed.filter((s) => s.endsWith(`-${t}`))).toEqual([`m5-${t}`, `y2-${t}`, `z1-${t}`, `x3-${t}`, `a4-${t}`]);
    expect(listed).toContain(cat.plan.slug);
    expect(listed).not.toContain(cat.hidden.slug);
  });
});

describe("link token", () => {
  it("stores the customer and the selection under the token's hash for 24 hours", async () => {
    const { createLink, repo, deps } = await load();
    const t0 = new Date("2026-11-21T12:00:30.750Z");

    const link = await createLink(deps, { plan: cat.plan.slug, billing_cycle: "yearly", additional_inboxes: 3, coupon: ` ${cat.codes.percent.toLowerCase()}`, customer }, t0);
    const bare = await createLink(deps, { plan: cat.plan.slug, billing_cycle: "monthly", customer }, t0);

    expect(link.expires_at).toBe("2026-11-22T12:00:30.000Z");
    const token = new URL(link.url).searchParams.get("token")!;
    expect(await repo.getToken(sha256Hex(token))).toEqual({
      hash: sha256Hex(token),
      customer,
      plan: cat.plan.slug,
      billing_cycle: "yearly",
      additional_inboxes: 3,
      coupon: cat.codes.percent,
      created_at: unix(t0),
      expiresAt: unix(t0) + 24 * 3600,
    });
    const bareToken = new URL(bare.url).searchParams.get("token")!;
    expect(await repo.getToken(sha256Hex(bareToken))).toMatchObject({ billing_cycle: "monthly", additional_inboxes: 0, coupon: null });
  });

  it("prefill returns the customer until 24 hours after the link, and 404 from that second on", async () => {
    const { createLink, prefill, repo, deps } = await load();
    const t0 = new Date("2026-11-21T12:00:30.750Z");
    const link = await createLink(deps, { plan: cat.plan.slug, billing_cycle: "monthly", customer }, t0);
    const token = new URL(link.url).searchParams.get("token")!;
    const expiry = Date.parse("2026-11-22T12:00:30.000Z");

    expect(await prefill(repo, token, t0)).toEqual({ customer, expires_at: "2026-11-22T12:00:30.000Z" });
    expect(await prefill(repo, token, new Date(expiry - 1))).toEqual({ customer, expires_at: "2026-11-22T12:00:30.000Z" });
    expect((await failure(prefill(repo, token, new Date(expiry)))).status).toBe(404);
    expect((await failure(prefill(repo, token, new Date(expiry + 3600_000)))).status).toBe(404);
  });

  it("prefill refuses a token not of the issued form, even when a record exists under its hash", async () => {
    const { createLink, prefill, repo, deps } = await load();
    const now = new Date("2026-11-21T12:00:00Z");
    const link = await createLink(deps, { plan: cat.plan.slug, billing_cycle: "monthly", customer }, now);
    const issued = new URL(link.url).searchParams.get("token")!;
    const malformed = [`!${issued}`, `${issued}!`, `${issued} `, `../${issued}`, "short"];
    for (const token of malformed) {
      await repo.putToken({ hash: sha256Hex(token), customer, plan: cat.plan.slug, billing_cycle: "monthly", additional_inboxes: 0, coupon: null, created_at: unix(now), expiresAt: unix(now) + 3600 });
    }

    expect((await prefill(repo, issued, now)).customer).toEqual(customer);
    for (const token of malformed) {
      expect((await failure(prefill(repo, token, now))).status, token).toBe(404);
    }
    expect((await failure(prefill(repo, undefined, now))).status).toBe(404);
  });
});

describe("422 on plan and coupon", () => {
  it("names the field, the reason and says it in words", async () => {
    const { createLink, deps } = await load();
    const now = new Date("2026-11-21T12:00:00Z");
    const cases: [Record<string, unknown>, string, string, string][] = [
      [{ plan: cat.hidden.slug }, "plan", "inclusion", "is not a published plan"],
      [{ plan: "no-such-plan" }, "plan", "inclusion", "is not a published plan"],
      [{ coupon: "NO-SUCH-COUPON" }, "coupon", "not_found", "does not exist"],
      [{ coupon: cat.codes.expired }, "coupon", "expired", "has expired"],
      [{ coupon: cat.codes.fixed, billing_cycle: "yearly" }, "coupon", "not_applicable", "does not apply to this plan or billing cycle"],
      [{ coupon: cat.extra[0] }, "coupon", "exhausted", "has reached its maximum number of redemptions"],
    ];
    for (const [over, field, code, message] of cases) {
      const err = await failure(createLink(deps, { plan: cat.plan.slug, billing_cycle: "monthly", ...over } as never, now));
      expect(err.status, JSON.stringify(over)).toBe(422);
      expect(err.body(), JSON.stringify(over)).toEqual({
        message: `${field === "plan" ? "Plan" : "Coupon"} ${message}`,
        attributes: [field],
        errors: [{ field, code, message }],
      });
    }
  });
});

describe("quote", () => {
  it("stores every field (absent ones as null) and emits quote_requested carrying the quote", async () => {
    const { requestQuote, repo } = await load();
    const now = new Date("2026-11-21T12:00:00.900Z");
    const full = { name: "João", email: "joao@grande.com.br", phone: "+552134567890", company: "Grande SA", cnpj: "11222333000181", inboxes: 40, agents: 120, message: "Need 40 inboxes" };

    const a = await requestQuote(repo, full, now);
    const b = await requestQuote(repo, { name: "Ana", email: "ana@x.com", message: "Hi" }, now);

    expect(a).toEqual({ id: expect.any(Number), status: "received", created_at: unix(now) });
    expect(b.id).not.toBe(a.id);
    const quotes = await scan("quote");
    const quoteA = { id: a.id, status: "received", ...full, created_at: unix(now) };
    const quoteB = { id: b.id, status: "received", name: "Ana", email: "ana@x.com", phone: null, company: null, cnpj: null, inboxes: null, agents: null, message: "Hi", created_at: unix(now) };
    expect(quotes.find((q) => q["id"] === a.id)).toMatchObject(quoteA);
    expect(quotes.find((q) => q["id"] === b.id)).toMatchObject(quoteB);
    const events = (await scan("outbox"))
      .filter((e) => e["event"] === "quote_requested")
      .map((e) => ({ accountId: e["accountId"], payload: JSON.parse(String(e["payload"])) }));
    expect(events).toContainEqual({ accountId: 0, payload: { ...quoteA, event: "quote_requested", id: String(a.id) } });
    expect(events).toContainEqual({ accountId: 0, payload: { ...quoteB, event: "quote_requested", id: String(b.id) } });
  });
});
