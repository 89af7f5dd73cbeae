/**
 * The operator's catalog files (`npm run admin -- plans:put <file>`, `coupons:put <file>`, the
 * sandbox seed): JSON holding one item, an array of items, or `{"plans":[...]}` /
 * `{"coupons":[...]}`, each validated with the same zod schemas the service reads with.
 */
import { readFileSync } from "node:fs";
import * as z from "zod/mini";
import { en } from "zod/locales";
import { couponSchema, planSchema, type CouponDef, type Plan } from "../shared/domain/checkout/catalog.ts";

export class CatalogFileError extends Error {}

/** zod/mini ships no messages ("Invalid input"); the operator gets the English ones. */
const messages = en().localeError;

function items(file: string, wrapper: "plans" | "coupons"): unknown[] {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new CatalogFileError(`${file}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CatalogFileError(`${file}: not valid JSON (${(err as Error).message})`);
  }
  if (Array.isArray(data)) return data;
  if (data !== null && typeof data === "object" && Array.isArray((data as Record<string, unknown>)[wrapper])) {
    return (data as Record<string, unknown[]>)[wrapper]!;
  }
  return [data];
}

function parseAll<T>(file: string, wrapper: "plans" | "coupons", schema: z.ZodMiniType<T>, id: (t: T) => string): T[] {
  const raw = items(file, wrapper);
  if (raw.length === 0) throw new CatalogFileError(`${file}: no ${wrapper} in the file`);
  const problems: string[] = [];
  const out: T[] = [];
  raw.forEach((item, i) => {
    const r = schema.safeParse(item, { error: messages });
    const label = (item as Record<string, unknown> | null)?.[wrapper === "plans" ? "slug" : "code"];
    const where = `${wrapper} item ${i + 1}${typeof label === "string" ? ` (${JSON.stringify(label)})` : ""}`;
    if (r.success) out.push(r.data);
    else for (const issue of r.error.issues) problems.push(`  ${where}: ${issue.path.join(".") || "(item)"}: ${issue.message}`);
  });
  const seen = new Set<string>();
  for (const t of out) {
    if (seen.has(id(t))) problems.push(`  ${JSON.stringify(id(t))} appears more than once`);
    seen.add(id(t));
  }
  if (problems.length) throw new CatalogFileError(`${file}: invalid ${wrapper}, nothing was written:\n${problems.join("\n")}`);
  return out;
}

export const readPlansFile = (file: string): Plan[] => parseAll(file, "plans", planSchema(), (p) => p.slug);
export const readCouponsFile = (file: string): CouponDef[] => parseAll(file, "coupons", couponSchema(), (c) => c.code);
