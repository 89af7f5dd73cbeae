/**
 * Billing coupon (POST /accounts/{id}/billing/coupon) against DynamoDB Local: the coupon is priced
 * on the account's current subscription; a canceled or missing subscription is a 422 on
 * `subscription`; a subscription whose plan left the catalog gets no coupon.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { putRaw } from "../../shared/db/accounts-repo.ts";
import { checkoutRepo } from "../../shared/db/checkout-repo.ts";
import { checkoutKeys } from "../../shared/db/keys.ts";
import { billingCoupon } from "../../shared/domain/checkout/billing.ts";
import { invoke } from "../support/api.ts";
import { customer, makeCatalog } from "../support/checkout.ts";
import { makeAccount } from "../support/fixtures.ts";

let cat: Awaited<ReturnType<typeof makeCatalog>>;

beforeAll(async () => {
  cat = await makeCatalog();
});

type Status = "pending_payment" | "active" | "canceled";

/** An account with a subscription on `plan` (monthly, 4 additional inboxes). */
async function subscribed(plan: string, status: Status = "active") {
  const acct = await makeAccount();
  await putRaw({
    ...checkoutKeys.subscription(acct.accountId),
    entity: "subscription",
    id: acct.accountId,
    account_id: acct.accountId,
    status,
    plan,
    billing_cycle: "monthly",
    additional_inboxes: 4,
    coupon: null,
    price: { currency: "BRL", subtotal: 0, discount: 0, total: 0 },
    customer,
    created_at: 1,
  });
  return acct;
}

const check = (acct: Awaited<ReturnType<typeof makeAccount>>, code: string) =>
  invoke("billing.coupon", { params: { account_id: acct.accountId }, key: acct.adminKey, body: { code } });

const noSubscription = {
  field: "subscription",
  code: "not_found",
  message: "does not exist",
};

describe("billing coupon", () => {
  it("answers for a subscription awaiting payment, priced on its plan, cycle and inboxes", async () => {
    const acct = await subscribed(cat.plan.slug, "pending_payment");

    const res = await check(acct, cat.codes.percent);

    expect(res.status).toBe(200);
    // 34900 + 4 x 2900 = 46500; 15 % = 6975
    expect(res.json.valid).toBe(true);
    expect(res.json.price).toEqual({ currency: "BRL", subtotal: 46500, discount: 6975, total: 39525 });
  });

  it("prices on a plan no longer published: a retired plan still bills its customers", async () => {
    const acct = await subscribed(cat.hidden.slug);

    const res = await check(acct, cat.codes.percent);

    // The hidden plan: 10000 + 4 x 2500 = 20000; 15 % = 3000
    expect(res.json).toMatchObject({ valid: true, price: { currency: "BRL", subtotal: 20000, discount: 3000, total: 17000 } });
  });

  it("gives no coupon to a subscription whose plan is no longer in the catalog", async () => {
    const acct = await subscribed(`gone-${cat.tag}`);

    const res = await check(acct, cat.codes.percent);

    expect(res.status).toBe(200);
    expect(res.json).toEqual({ valid: false, reason: "not_applicable" });
  });

  it("422s on subscription when the account has none", async () => {
    const acct = await makeAccount();

    const res = await check(acct, cat.codes.percent);

    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["subscription"]);
    expect(res.json.errors).toEqual([noSubscription]);
  });

  it("422s on subscription when the account's subscription was canceled", async () => {
    const acct = await subscribed(cat.plan.slug, "canceled");

    const res = await check(acct, cat.codes.percent);

    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual(["subscription"]);
    expect(res.json.errors).toEqual([noSubscription]);
  });

  it("finds the coupon whatever the case and the spaces around its code (the use case, called directly)", async () => {
    const acct = await subscribed(cat.plan.slug);

    const answer = await billingCoupon(checkoutRepo, acct.accountId, `  ${cat.codes.percent.toLowerCase()}\t`, new Date());

    expect(answer).toMatchObject({ valid: true, coupon: { code: cat.codes.percent }, price: { subtotal: 46500, discount: 6975, total: 39525 } });
  });
});
