/** Plans and coupons in the main table (the operator's catalog, `npm run admin`). */
import { PutCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { couponSchema, planSchema, type Coupon, type CouponDef, type Plan } from "../domain/checkout/catalog.ts";
import type { CatalogReader } from "../domain/checkout/checkout.ts";
import { db, isConditionalFailure, mainTableName } from "./client.ts";
import { getItem, strip } from "./items.ts";
import { checkoutKeys } from "./keys.ts";
import { queryPrefix } from "./query.ts";

type Item = Record<string, unknown>;

const toPlan = (item: Item): Plan => planSchema().parse(strip(item));
const toCoupon = (item: Item): Coupon => ({ ...couponSchema().parse(strip(item)), redemptions: Number(item["redemptions"] ?? 0) });


export const catalogRepo: CatalogReader = {
  async getPlan(slug) {
    const item = await getItem(checkoutKeys.plan(slug), false);
    return item ? toPlan(item) : undefined;
  },
  async listPlans() {
    const k = checkoutKeys.planPrefix();
    return (await queryPrefix(k.pk, k.skPrefix)).map(toPlan);
  },
  async getCoupon(code) {
    // Strongly consistent: the redemption count decides "exhausted".
    const item = await getItem(checkoutKeys.coupon(code), true);
    return item ? toCoupon(item) : undefined;
  },
};

export async function listCoupons(): Promise<Coupon[]> {
  const k = checkoutKeys.couponPrefix();
  return (await queryPrefix(k.pk, k.skPrefix)).map(toCoupon);
}

/** Creates or replaces a plan. `onlyIfMissing`: keep an existing one (sandbox seed). Returns whether it was written. */
export async function putPlan(plan: Plan, opts: { onlyIfMissing?: boolean } = {}): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: mainTableName(),
        Item: { ...checkoutKeys.plan(plan.slug), entity: "plan", ...plan },
        ...(opts.onlyIfMissing ? { ConditionExpression: "attribute_not_exists(pk)" } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (opts.onlyIfMissing && isConditionalFailure(err)) return false;
    throw err;
  }
}

/**
 * Creates or updates a coupon's definition; its redemption count is kept (starts at 0).
 * `onlyIfMissing`: keep an existing one (sandbox seed). Returns whether it was written.
 */
export async function putCoupon(coupon: CouponDef, opts: { onlyIfMissing?: boolean } = {}): Promise<boolean> {
  const fields = Object.entries({ entity: "coupon", ...coupon });
  try {
    await db().send(
      new UpdateCommand({
        TableName: mainTableName(),
        Key: checkoutKeys.coupon(coupon.code),
        UpdateExpression: `SET ${fields.map((_, i) => `#f${i} = :v${i}`).join(", ")}, redemptions = if_not_exists(redemptions, :zero)`,
        ExpressionAttributeNames: Object.fromEntries(fields.map(([k], i) => [`#f${i}`, k])),
        ExpressionAttributeValues: { ...Object.fromEntries(fields.map(([, v], i) => [`:v${i}`, v])), ":zero": 0 },
        ...(opts.onlyIfMissing ? { ConditionExpression: "attribute_not_exists(pk)" } : {}),
      }),
    );
    return true;
  } catch (err) {
    if (opts.onlyIfMissing && isConditionalFailure(err)) return false;
    throw err;
  }
}
