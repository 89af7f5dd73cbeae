/** The price of a selection outside 0..100 additional inboxes: refused, saying the range. */
import { describe, expect, it } from "vitest";
import { MAX_ADDITIONAL_INBOXES, priceFor } from "../../shared/domain/checkout/pricing.ts";
import { plan } from "../support/checkout.ts";

describe("additional inboxes out of range", () => {
  const p = plan({ slug: "limits" });

  it.each([[-1], [MAX_ADDITIONAL_INBOXES + 1], [2.5], [Number.NaN]])("refuses %s, naming the allowed range", (inboxes) => {
    expect(() => priceFor(p, "monthly", inboxes)).toThrow(new RangeError("additional inboxes must be an integer 0..100"));
  });

  it("prices both ends of the range", () => {
    expect(priceFor(p, "monthly", 0).subtotal).toBe(10000);
    expect(priceFor(p, "monthly", MAX_ADDITIONAL_INBOXES).subtotal).toBe(10000 + 100 * 2500);
  });
});
