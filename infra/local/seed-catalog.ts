/**
 * Sandbox catalog: the plans and coupons of infra/local/catalog/*.json (3 plans, a percent
 * coupon, a fixed coupon, an expired one), and a subscription for the demo account so that the
 * billing coupon endpoint has something to price. Only what is missing is written: the
 * operator's edits (`npm run admin`) and redemption counts survive a restart.
 */
import { fileURLToPath } from "node:url";
import { putCoupon, putPlan } from "../../shared/db/catalog-repo.ts";
import { putRaw } from "../../shared/db/accounts-repo.ts";
import { checkoutKeys } from "../../shared/db/keys.ts";
import { getItem, nextGlobalId } from "../../shared/db/items.ts";
import { priceFor } from "../../shared/domain/checkout/pricing.ts";
import type { Subscription } from "../../shared/domain/checkout/subscribe.ts";
import { readCouponsFile, readPlansFile } from "../catalog-files.ts";

export const SEED_PLANS_FILE = fileURLToPath(new URL("./catalog/plans.json", import.meta.url));
export const SEED_COUPONS_FILE = fileURLToPath(new URL("./catalog/coupons.json", import.meta.url));

export async function seedCatalog(demoAccountId: number): Promise<void> {
  const plans = readPlansFile(SEED_PLANS_FILE);
  for (const plan of plans) await putPlan(plan, { onlyIfMissing: true });
  for (const coupon of readCouponsFile(SEED_COUPONS_FILE)) await putCoupon(coupon, { onlyIfMissing: true });

  if (await getItem(checkoutKeys.subscription(demoAccountId))) return;
  const plan = plans.find((p) => p.slug === "profissional") ?? plans[0]!;
  const now = Math.floor(Date.now() / 1000);
  const subscription: Subscription = {
    id: await nextGlobalId("subscription"),
    account_id: demoAccountId,
    status: "active",
    plan: plan.slug,
    billing_cycle: "monthly",
    additional_inboxes: 2,
    coupon: null,
    price: priceFor(plan, "monthly", 2),
    customer: { name: "Acme Demo Ltda", email: "billing@example.com", phone: "+5511912345678", cnpj: "11222333000181" },
    created_at: now,
  };
  await putRaw({ ...checkoutKeys.subscription(demoAccountId), entity: "subscription", ...subscription });
}
