import { describe, expect, it } from "vitest";
import { discountFor, percentOf, priceFor } from "../../shared/domain/checkout/pricing.ts";
import { plan } from "../support/checkout.ts";

const p = plan({ slug: "p", prices: { monthly: 999, yearly: 9990 }, additional_inbox_prices: { monthly: 333, yearly: 3330 } });

describe("priceFor (the one pricing function)", () => {
  it("subtotal = plan price for the cycle + additional inboxes x inbox price", () => {
    expect(priceFor(p, "monthly", 0)).toEqual({ currency: "BRL", subtotal: 999, discount: 0, total: 999 });
    expect(priceFor(p, "monthly", 3)).toEqual({ currency: "BRL", subtotal: 1998, discount: 0, total: 1998 });
    expect(priceFor(p, "yearly", 100)).toEqual({ currency: "BRL", subtotal: 9990 + 333000, discount: 0, total: 342990 });
  });

  it("rounds a percent discount half-up to the cent", () => {
    // 999 x 12.5% = 124.875 -> 125; 1998 x 12.5% = 249.75 -> 250; 10 x 25% = 2.5 -> 3; 30 x 15% = 4.5 -> 5
    expect(priceFor(p, "monthly", 0, { kind: "percent", value: 12.5 })).toEqual({ currency: "BRL", subtotal: 999, discount: 125, total: 874 });
    expect(priceFor(p, "monthly", 3, { kind: "percent", value: 12.5 }).discount).toBe(250);
    expect(percentOf(10, 2500)).toBe(3);
    expect(percentOf(30, 1500)).toBe(5);
    // 0.1 x 0.29 style drift: 29 x 10% = 2.9 -> 3, 1005 x 10% = 100.5 -> 101, 1004 x 10% = 100.4 -> 100
    expect(discountFor(29, { kind: "percent", value: 10 })).toBe(3);
    expect(discountFor(1005, { kind: "percent", value: 10 })).toBe(101);
    expect(discountFor(1004, { kind: "percent", value: 10 })).toBe(100);
  });

  it("handles two-decimal percents exactly (no floating-point drift)", () => {
    // 0.29 * 100 = 28.999999999999996 in floating point; basis points make it 29 exactly.
    expect(discountFor(10000, { kind: "percent", value: 0.29 })).toBe(29);
    expect(discountFor(50, { kind: "percent", value: 33.33 })).toBe(17); // 16.665 -> 17
    expect(discountFor(1, { kind: "percent", value: 49.99 })).toBe(0); // 0.4999 -> 0
    expect(discountFor(1, { kind: "percent", value: 50 })).toBe(1); // 0.5 -> 1
  });

  it("100% makes the total zero; a percent never exceeds the subtotal", () => {
    expect(priceFor(p, "monthly", 1, { kind: "percent", value: 100 })).toEqual({ currency: "BRL", subtotal: 1332, discount: 1332, total: 0 });
  });

  it("caps a fixed discount at the subtotal", () => {
    expect(priceFor(p, "monthly", 0, { kind: "fixed", value: 500 })).toEqual({ currency: "BRL", subtotal: 999, discount: 500, total: 499 });
    expect(priceFor(p, "monthly", 0, { kind: "fixed", value: 999 }).total).toBe(0);
    expect(priceFor(p, "monthly", 0, { kind: "fixed", value: 100000 })).toEqual({ currency: "BRL", subtotal: 999, discount: 999, total: 0 });
  });

  it("gives integers for every combination", () => {
    for (let inboxes = 0; inboxes <= 100; inboxes += 7) {
      for (const value of [0.01, 1, 7.77, 12.5, 33.33, 99.99]) {
        const price = priceFor(p, "yearly", inboxes, { kind: "percent", value });
        expect(Number.isInteger(price.discount) && Number.isInteger(price.total)).toBe(true);
        expect(price.subtotal - price.discount).toBe(price.total);
      }
    }
  });

  it("rejects additional inboxes outside 0..100 or non-integers", () => {
    expect(() => priceFor(p, "monthly", 101)).toThrow(RangeError);
    expect(() => priceFor(p, "monthly", -1)).toThrow(RangeError);
    expect(() => priceFor(p, "monthly", 1.5)).toThrow(RangeError);
  });
});
