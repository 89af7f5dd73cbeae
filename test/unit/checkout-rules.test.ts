import * as z from "zod/mini";
import { describe, expect, it } from "vitest";
import { checkCoupon, couponSchema, planSchema } from "../../shared/domain/checkout/catalog.ts";
import { formatCnpj, isValidCnpj, normalizeCnpj } from "../../shared/domain/checkout/cnpj.ts";
import { normalizeBrazilianPhone } from "../../shared/domain/checkout/phone.ts";
import { canonicalJson, fingerprint, seal, unseal } from "../../shared/domain/checkout/idempotency.ts";
import { allowedOrigin, corsHeaders, preflightHeaders } from "../../shared/http/cors.ts";
import { parseOr422 } from "../../shared/http/validation.ts";
import { cnpj, email, phone } from "../../shared/http/schemas/checkout.ts";
import { coupon, plan } from "../support/checkout.ts";

describe("CNPJ", () => {
  it.each([
    "11.222.333/0001-81",
    "11222333000181",
    "04.252.011/0001-10",
    "33.000.167/0001-01",
    "12.ABC.345/01DE-35",
    "12ABC34501DE35",
    "12abc34501de35",
    "11222333000009", // second check digit 9 (remainder 2)
    "11.222.333/0006-96", // first check digit 9
    "11222333000D39", // alphanumeric, second check digit 9
    "11222333000F09", // a remainder below 2 gives 0
    "A1.B2C.3D4/E5F6-00".replace(/-00$/, `-${checkDigitsOf("A1B2C3D4E5F6")}`),
  ])("valid: %s", (v) => {
    expect(isValidCnpj(v)).toBe(true);
  });

  it.each([
    ["wrong first check digit", "11.222.333/0001-91"],
    ["wrong second check digit", "11.222.333/0001-82"],
    ["alphanumeric, wrong check digit", "12.ABC.345/01DE-36"],
    ["letters in the check digits", "12.ABC.345/01DE-3A"],
    ["too short", "1122233300018"],
    ["too long", "112223330001811"],
    ["16 characters (a valid one with two more digits)", "1122233300018100"],
    ["16 characters ending in the check digits of its first 12", "1122233300018181"],
    ["16 characters, formatted", "11.222.333/0001-8100"],
    ["check digit 9 expected, 0 given", "11222333000000"],
    ["check digit 9 expected, 8 given", "11222333000008"],
    ["first check digit 9 expected, 8 given", "11222333000686"],
    ["all equal digits (check digits would pass)", "00000000000000"],
    ["all equal digits", "11.111.111/1111-11"],
    ["other separators", "11 222 333 0001 81"],
    ["symbols", "11222333000!81"],
    ["empty", ""],
  ])("invalid: %s (%s)", (_why, v) => {
    expect(isValidCnpj(v)).toBe(false);
  });

  it("normalizes to 14 characters and formats back", () => {
    expect(normalizeCnpj(" 12.abc.345/01de-35 ")).toBe("12ABC34501DE35");
    expect(formatCnpj("12ABC34501DE35")).toBe("12.ABC.345/01DE-35");
  });
});

/** Check digits computed independently of the implementation (the published reference algorithm). */
function checkDigitsOf(twelve: string): string {
  const dv = (s: string, w: number[]) => {
    const r = w.reduce((sum, wi, i) => sum + (s.charCodeAt(i) - 48) * wi, 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  const d1 = dv(twelve, [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  const d2 = dv(twelve + d1, [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]);
  return `${d1}${d2}`;
}

describe("Brazilian phones -> E.164", () => {
  it.each([
    ["+55 11 91234-5678", "+5511912345678"],
    ["(11) 91234-5678", "+5511912345678"],
    ["11912345678", "+5511912345678"],
    ["5511912345678", "+5511912345678"],
    ["011 91234 5678", "+5511912345678"],
    ["+55 (21) 3456-7890", "+552134567890"],
    ["(21) 3456-7890", "+552134567890"],
    ["55 55 99876.5432", "+5555998765432"],
    ["(55) 3222-1234", "+555532221234"],
  ])("%s -> %s", (input, e164) => {
    expect(normalizeBrazilianPhone(input)).toBe(e164);
  });

  it.each([
    ["a US number", "+1 415 555 0100"],
    ["no DDD", "91234-5678"],
    ["DDD that does not exist", "(20) 91234-5678"],
    ["mobile without the 9", "(11) 8123-4567"],
    ["11 digits not starting with 9", "(11) 81234-5678"],
    ["too long", "+55 11 91234-56789"],
    ["letters", "11 9123A-5678"],
    ["empty", ""],
  ])("rejects %s (%s)", (_why, input) => {
    expect(normalizeBrazilianPhone(input)).toBeUndefined();
  });
});

describe("checkout field schemas", () => {
  it("name the field and give stable codes", () => {
    const schema = z.object({ customer: z.object({ cnpj, phone, email }) });
    expect(() => parseOr422(schema, { customer: { cnpj: "11.222.333/0001-82", phone: "123", email: "x@" } })).toThrow(
      expect.objectContaining({
        errors: [
          { field: "customer.cnpj", code: "invalid", message: "is not a valid CNPJ" },
          { field: "customer.phone", code: "invalid", message: "is not a valid Brazilian phone number" },
          { field: "customer.email", code: "invalid", message: "is invalid" },
        ],
      }),
    );
  });

  it("normalize values", () => {
    const schema = z.object({ cnpj, phone, email });
    expect(parseOr422(schema, { cnpj: "12.abc.345/01de-35", phone: "(11) 91234-5678", email: " Maria@Empresa.COM.br " })).toEqual({
      cnpj: "12ABC34501DE35",
      phone: "+5511912345678",
      email: "maria@empresa.com.br",
    });
  });
});

describe("coupon rules", () => {
  const p = plan({ slug: "pro" });
  const now = new Date("2026-11-21T12:00:00Z");
  const c = (over: Parameters<typeof coupon>[0]) => ({ ...coupon(over), redemptions: 0 });

  it("accepts a coupon within its window, plans, cycles and maximum", () => {
    expect(checkCoupon(c({ code: "OK", valid_from: "2026-01-01T00:00:00Z", valid_until: "2026-12-01T00:00:00Z", plans: ["pro"], cycles: ["monthly"], max_redemptions: 1 }), p, "monthly", now).ok).toBe(true);
  });

  it("gives the reason otherwise", () => {
    const reason = (r: ReturnType<typeof checkCoupon>) => (r.ok ? "ok" : r.reason);
    expect(reason(checkCoupon(undefined, p, "monthly", now))).toBe("not_found");
    expect(reason(checkCoupon(c({ code: "SOON", valid_from: "2026-12-01T00:00:00Z" }), p, "monthly", now))).toBe("not_found");
    expect(reason(checkCoupon(c({ code: "OLD", valid_until: "2026-11-21T12:00:00Z" }), p, "monthly", now))).toBe("expired");
    expect(reason(checkCoupon(c({ code: "OTHER", plans: ["basic"] }), p, "monthly", now))).toBe("not_applicable");
    expect(reason(checkCoupon(c({ code: "YEAR", cycles: ["yearly"] }), p, "monthly", now))).toBe("not_applicable");
    expect(reason(checkCoupon({ ...c({ code: "FULL", max_redemptions: 3 }), redemptions: 3 }, p, "monthly", now))).toBe("exhausted");
  });

  it("validates the operator's definitions", () => {
    expect(couponSchema().safeParse({ code: "x", kind: "percent", value: 10, duration: "once" }).success).toBe(false);
    expect(couponSchema().safeParse({ code: "BIG", kind: "percent", value: 101, duration: "once" }).success).toBe(false);
    expect(couponSchema().safeParse({ code: "FINE", kind: "percent", value: 12.345, duration: "once" }).success).toBe(false);
    expect(couponSchema().safeParse({ code: "CENTS", kind: "fixed", value: 10.5, duration: "once" }).success).toBe(false);
    expect(couponSchema().safeParse({ code: "REP", kind: "fixed", value: 100, duration: "repeating" }).success).toBe(false);
    expect(couponSchema().safeParse({ code: "REP", kind: "fixed", value: 100, duration: "repeating", duration_months: 3 }).success).toBe(true);
    expect(couponSchema().parse({ code: " lower_case ", kind: "percent", value: 12.5, duration: "forever" }).code).toBe("LOWER_CASE");
    expect(planSchema().safeParse({ slug: "Not A Slug", name: "x", prices: { monthly: 1, yearly: 1 }, included_inboxes: 1, additional_inbox_prices: { monthly: 1, yearly: 1 } }).success).toBe(false);
    expect(planSchema().safeParse({ slug: "ok", name: "x", prices: { monthly: 9.9, yearly: 1 }, included_inboxes: 1, additional_inbox_prices: { monthly: 1, yearly: 1 } }).success).toBe(false);
  });
});

describe("idempotency records", () => {
  it("canonical JSON ignores key order", () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { y: 2, x: 1 }], c: null } })).toBe(canonicalJson({ a: { c: null, d: [1, { x: 1, y: 2 }] }, b: 1 }));
    expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
  });

  it("seals a reply that only the same secret part opens", async () => {
    const sealed = await seal({ access_token: "cv_secret" }, { password: "right" });

    expect(sealed).not.toContain("cv_secret");
    expect(await unseal(sealed, { password: "right" })).toEqual({ access_token: "cv_secret" });
    expect(await unseal(sealed, { password: "wrong" })).toBeUndefined();
  });
});

describe("CORS", () => {
  const allowed = ["https://www.example.com.br"];
  it("echoes allowed origins only", () => {
    expect(allowedOrigin("https://www.example.com.br", allowed)).toBe("https://www.example.com.br");
    expect(allowedOrigin("https://www.example.com.br.evil.io", allowed)).toBeUndefined();
    expect(allowedOrigin(undefined, allowed)).toBeUndefined();
    expect(corsHeaders("https://evil.io", allowed)).toEqual({ vary: "origin" });
    expect(corsHeaders("https://x.io", [])).toEqual({});
  });

  it("answers the preflight without api_access_token among the allowed headers", () => {
    const h = preflightHeaders("https://www.example.com.br", allowed);
    expect(h["access-control-allow-origin"]).toBe("https://www.example.com.br");
    expect(h["access-control-allow-headers"]).toBe("content-type,idempotency-key");
    expect(h["access-control-allow-methods"]).toBe("GET,POST,OPTIONS");
  });
});
