/** Checkout test data: a catalog written through the repository, valid request bodies, and what the tests read back. */
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { putCoupon, putPlan } from "../../shared/db/catalog-repo.ts";
import { db, mainTableName } from "../../shared/db/client.ts";
import { couponSchema, planSchema, type CouponDef, type Plan } from "../../shared/domain/checkout/catalog.ts";

export const VALID_CNPJ = "11.222.333/0001-81";
export const VALID_ALNUM_CNPJ = "12.ABC.345/01DE-35";

export function plan(over: Partial<Plan> & { slug: string }): Plan {
  return planSchema().parse({
    name: over.slug,
    prices: { monthly: 10000, yearly: 100000 },
    included_inboxes: 2,
    additional_inbox_prices: { monthly: 2500, yearly: 25000 },
    ...over,
  });
}

export function coupon(over: Partial<CouponDef> & { code: string }): CouponDef {
  return couponSchema().parse({ kind: "percent", value: 10, duration: "once", ...over });
}

let n = 0;
/** A catalog with unique slugs/codes for one test: published + unpublished plan, coupons. */
export async function makeCatalog(extraCoupons: Partial<CouponDef>[] = []) {
  const tag = `${process.pid.toString(36)}${(++n).toString(36)}`;
  const p = plan({ slug: `pro-${tag}`, name: "Pro", prices: { monthly: 34900, yearly: 349000 }, additional_inbox_prices: { monthly: 2900, yearly: 29000 } });
  const hidden = plan({ slug: `legacy-${tag}`, published: false });
  await putPlan(p);
  await putPlan(hidden);
  const codes = {
    percent: `PCT${tag}`.toUpperCase(),
    fixed: `FIX${tag}`.toUpperCase(),
    expired: `OLD${tag}`.toUpperCase(),
  };
  await putCoupon(coupon({ code: codes.percent, kind: "percent", value: 15, duration: "repeating", duration_months: 3 }));
  await putCoupon(coupon({ code: codes.fixed, kind: "fixed", value: 5000, plans: [p.slug], cycles: ["monthly"] }));
  await putCoupon(coupon({ code: codes.expired, valid_until: "2025-12-01T23:59:59-03:00" }));
  const extra: string[] = [];
  for (const [i, c] of extraCoupons.entries()) {
    const code = `X${i}${tag}`.toUpperCase();
    await putCoupon(coupon({ ...c, code }));
    extra.push(code);
  }
  return { plan: p, hidden, codes, extra, tag };
}

export const customer = { name: "Maria Silva", email: "maria@empresa.com.br", phone: "(11) 91234-5678", cnpj: VALID_CNPJ };

export function subscribeBody(planSlug: string, email: string, over: Record<string, unknown> = {}) {
  return {
    plan: planSlug,
    billing_cycle: "monthly",
    additional_inboxes: 2,
    account_name: "Empresa Ltda",
    user: { name: "Maria Silva", email, password: "s3nha-forte-123" },
    customer,
    ...over,
  };
}

/** Every item of the main table of one entity (a consistent scan: the tests' tables are small). */
export async function scan(entity: string): Promise<Record<string, unknown>[]> {
  const out = await db().send(
    new ScanCommand({ TableName: mainTableName(), FilterExpression: "entity = :e", ExpressionAttributeValues: { ":e": entity }, ConsistentRead: true }),
  );
  return out.Items ?? [];
}

/** The error a call rejects with (an HttpError: status and body); fails the test when it resolves. */
export async function failure(p: Promise<unknown>): Promise<{ status: number; body(): unknown }> {
  try {
    await p;
  } catch (err) {
    return err as { status: number; body(): unknown };
  }
  throw new Error("expected the call to fail");
}
