/**
 * Subscribe against DynamoDB Local: one transaction (or nothing), e-mail uniqueness,
 * Idempotency-Key replay/409/concurrency, coupon redemptions never past the maximum.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { getItem } from "../../shared/db/items.ts";
import { checkoutKeys } from "../../shared/db/keys.ts";
import { listCoupons } from "../../shared/db/catalog-repo.ts";
import { invoke } from "../support/api.ts";
import { makeCatalog, scan, subscribeBody } from "../support/checkout.ts";

let cat: Awaited<ReturnType<typeof makeCatalog>>;
let seq = 0;
const email = () => `buyer-${process.pid}-${++seq}@empresa.com.br`;

beforeAll(async () => {
  cat = await makeCatalog([{ kind: "fixed", value: 1000, max_redemptions: 5, duration: "once" }, { kind: "percent", value: 10, max_redemptions: 1, duration: "once" }]);
});

const redemptionsOf = async (code: string) => (await listCoupons()).find((c) => c.code === code)?.redemptions;

describe("subscribe", () => {
  it("creates account, admin user, membership, key, subscription and the operator event, and the key works", async () => {
    const body = subscribeBody(cat.plan.slug, email(), { coupon: cat.codes.percent.toLowerCase() });

    const res = await invoke("checkout.subscribe", { body });

    expect(res.status).toBe(201);
    expect(res.headers["cache-control"]).toBe("no-store");
    const { account, user, subscription, access_token } = res.json;
    expect(account).toEqual({ id: expect.any(Number), name: "Empresa Ltda" });
    expect(user).toEqual({ id: expect.any(Number), name: "Maria Silva", email: body.user.email });
    expect(subscription).toEqual({
      id: expect.any(Number),
      status: "pending_payment",
      plan: cat.plan.slug,
      billing_cycle: "monthly",
      additional_inboxes: 2,
      coupon: cat.codes.percent,
      price: { currency: "BRL", subtotal: 34900 + 2 * 2900, discount: 6105, total: 40700 - 6105 },
    });
    const shown = await invoke("accounts.show", { params: { account_id: account.id }, key: access_token });
    expect(shown.status).toBe(200);
    expect(shown.json).toMatchObject({ id: account.id, name: "Empresa Ltda", locale: "en" });
    const stored = await getItem(checkoutKeys.subscription(account.id));
    expect(stored).toMatchObject({ status: "pending_payment", customer: { phone: "+5511912345678", cnpj: "11222333000181" } });
    const userItem = await getItem({ pk: `USER#${user.id}`, sk: "USER" });
    expect(String(userItem?.["passwordHash"])).toMatch(/^scrypt\$/);
    expect(JSON.stringify(userItem)).not.toContain(body.user.password);
    const events = (await scan("outbox")).filter((e) => e["event"] === "subscription_created" && e["accountId"] === account.id);
    expect(events).toHaveLength(1);
    expect(JSON.parse(String(events[0]!["payload"]))).toMatchObject({ event: "subscription_created", id: String(subscription.id), account, subscription: { plan: cat.plan.slug } });
    expect(await redemptionsOf(cat.codes.percent)).toBe(1);
  });

  it("gives the account the locale sent (Chatwoot's codes), and refuses one of another form", async () => {
    const res = await invoke("checkout.subscribe", { body: { ...subscribeBody(cat.plan.slug, email()), locale: "pt_BR" } });
    expect(res.status).toBe(201);
    const shown = await invoke("accounts.show", { params: { account_id: res.json.account.id }, key: res.json.access_token });
    expect(shown.json.locale).toBe("pt_BR");
    const bad = await invoke("checkout.subscribe", { body: { ...subscribeBody(cat.plan.slug, email()), locale: "pt-BR; DROP" } });
    expect([bad.status, bad.json.attributes]).toEqual([422, ["locale"]]);
  });

  it("422s naming the field: unknown plan, unpublished plan, expired coupon, bad CNPJ, phone, inboxes", async () => {
    const cases: [Record<string, unknown>, string, string][] = [
      [{ plan: "no-such-plan" }, "plan", "inclusion"],
      [{ plan: cat.hidden.slug }, "plan", "inclusion"],
      [{ coupon: cat.codes.expired }, "coupon", "expired"],
      [{ coupon: "NOPE-NOPE" }, "coupon", "not_found"],
      [{ billing_cycle: "yearly", coupon: cat.codes.fixed }, "coupon", "not_applicable"],
      [{ customer: { name: "A", email: "a@b.co", phone: "11912345678", cnpj: "11.222.333/0001-82" } }, "customer.cnpj", "invalid"],
      [{ customer: { name: "A", email: "a@b.co", phone: "12345", cnpj: "11222333000181" } }, "customer.phone", "invalid"],
      [{ customer: { name: "A", email: "not-an-email", phone: "11912345678", cnpj: "11222333000181" } }, "customer.email", "invalid"],
      [{ additional_inboxes: 101 }, "additional_inboxes", "too_big"],
      [{ additional_inboxes: -1 }, "additional_inboxes", "too_small"],
      [{ additional_inboxes: 1.5 }, "additional_inboxes", "invalid"],
      [{ billing_cycle: "weekly" }, "billing_cycle", "inclusion"],
    ];
    for (const [over, field, code] of cases) {
      const res = await invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, email(), over) });
      expect(res.status, JSON.stringify(over)).toBe(422);
      expect(res.json.attributes, JSON.stringify(over)).toEqual([field]);
      expect(res.json.errors[0].code, JSON.stringify(over)).toBe(code);
    }
  });

  it("422s on a taken e-mail (user.email) and writes nothing, not even the coupon redemption", async () => {
    const taken = email();
    expect((await invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, taken) })).status).toBe(201);
    const accountsBefore = (await scan("account")).length;
    const before = await redemptionsOf(cat.codes.percent);

    const res = await invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, taken.toUpperCase(), { coupon: cat.codes.percent }) });

    expect(res.status).toBe(422);
    expect(res.json).toMatchObject({ attributes: ["user.email"], errors: [{ field: "user.email", code: "taken" }] });
    expect((await scan("account")).length).toBe(accountsBefore);
    expect(await redemptionsOf(cat.codes.percent)).toBe(before);
  });

  it("replays the first reply for the same Idempotency-Key and body, creating nothing", async () => {
    const body = subscribeBody(cat.plan.slug, email());
    const headers = { "idempotency-key": `idem-${process.pid}-1` };
    const first = await invoke("checkout.subscribe", { body, headers });
    const accountsAfterFirst = (await scan("account")).length;

    const again = await invoke("checkout.subscribe", { body: { ...body, user: { ...body.user } }, headers });

    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.json).toEqual(first.json);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect((await scan("account")).length).toBe(accountsAfterFirst);
    const record = (await scan("idempotency")).find((r) => r["key"] === headers["idempotency-key"]);
    expect(JSON.stringify(record)).not.toContain(first.json.access_token);
    expect(JSON.stringify(record)).not.toContain(body.user.password);
  });

  it("answers 409 for the same Idempotency-Key with another body, or another password", async () => {
    const body = subscribeBody(cat.plan.slug, email());
    const headers = { "idempotency-key": `idem-${process.pid}-2` };
    expect((await invoke("checkout.subscribe", { body, headers })).status).toBe(201);

    const otherBody = await invoke("checkout.subscribe", { body: { ...body, account_name: "Outra" }, headers });
    const otherPassword = await invoke("checkout.subscribe", { body: { ...body, user: { ...body.user, password: "another-password" } }, headers });

    expect(otherBody.status).toBe(409);
    expect(otherBody.json.code).toBe("idempotency_mismatch");
    expect(otherPassword.status).toBe(409);
  });

  it("creates exactly one account for concurrent duplicates with one Idempotency-Key", async () => {
    const body = subscribeBody(cat.plan.slug, email());
    const headers = { "idempotency-key": `idem-${process.pid}-3` };
    const accountsBefore = (await scan("account")).length;

    const replies = await Promise.all(Array.from({ length: 5 }, () => invoke("checkout.subscribe", { body, headers })));

    expect(replies.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(replies.map((r) => r.json.account.id)).size).toBe(1);
    expect(new Set(replies.map((r) => r.json.access_token)).size).toBe(1);
    expect((await scan("account")).length).toBe(accountsBefore + 1);
  });

  it("rejects a malformed Idempotency-Key with 400", async () => {
    const res = await invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, email()), headers: { "idempotency-key": "x".repeat(256) } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("bad_idempotency_key");
  });

  it("redemption race: 20 concurrent subscribes on a coupon with 5 redemptions left -> exactly 5 succeed", async () => {
    const code = cat.extra[0]!;

    const replies = await Promise.all(
      Array.from({ length: 20 }, () => invoke("checkout.subscribe", { body: subscribeBody(cat.plan.slug, email(), { coupon: code }) })),
    );

    const ok = replies.filter((r) => r.status === 201);
    const rejected = replies.filter((r) => r.status === 422);
    expect(ok, JSON.stringify(replies.map((r) => [r.status, r.json?.code ?? r.json?.errors?.[0]?.code]))).toHaveLength(5);
    expect(rejected).toHaveLength(15);
    for (const r of rejected) expect(r.json.errors[0]).toMatchObject({ field: "coupon", code: "exhausted" });
    expect(await redemptionsOf(code)).toBe(5);
    const subs = (await scan("subscription")).filter((s) => s["coupon"] === code);
    expect(subs).toHaveLength(5);
  }, 60_000);
});
