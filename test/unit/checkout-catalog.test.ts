/**
 * The checkout catalog as the operator writes it (`npm run admin -- plans:put / coupons:put`
 * read JSON files with the catalog's schemas): what a file may hold, the defaults filled in, and
 * every problem listed with its item and field. Then the coupon's validity window at its edges.
 *
 * Each test loads the catalog modules afresh (vi.resetModules): the schemas are built on first
 * use and then kept, and the slug and code patterns are module constants, so the rules a test
 * checks are those of a module loaded within that test, whatever ran before it. (The mutation run,
 * docs/mutation.md, credits module-level code to the test during which it ran.)
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

async function load() {
  vi.resetModules();
  const files = await import("../../infra/catalog-files.ts");
  const catalog = await import("../../shared/domain/checkout/catalog.ts");
  return { ...files, ...catalog };
}

let dir: string;
let n = 0;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "catalog-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function jsonFile(content: unknown): string {
  const file = join(dir, `${++n}.json`);
  writeFileSync(file, JSON.stringify(content));
  return file;
}

/** The problem lines of a refused file (after checking its heading), or the items read. */
function problems(read: (file: string) => unknown, wrapper: "plans" | "coupons", items: unknown[]): string[] {
  const file = jsonFile({ [wrapper]: items });
  let message: string | undefined;
  try {
    read(file);
  } catch (err) {
    message = (err as Error).message;
  }
  expect(message, "the file was accepted").toBeDefined();
  const [heading, ...lines] = message!.split("\n");
  expect(heading).toBe(`${file}: invalid ${wrapper}, nothing was written:`);
  return lines;
}

const percent = (over: Record<string, unknown>) => ({ kind: "percent", value: 10, duration: "once", ...over });
const fixed = (over: Record<string, unknown>) => ({ kind: "fixed", value: 1000, duration: "once", ...over });
const couponDefaults = { currency: "BRL", valid_from: null, valid_until: null, max_redemptions: null, plans: [], cycles: [], duration_months: null };

describe("coupon files", () => {
  it("reads coupons with the documented defaults, codes upper-cased, dates with a UTC offset kept as written", async () => {
    const { readCouponsFile } = await load();

    const coupons = readCouponsFile(
      jsonFile({
        coupons: [
          { code: " bemvindo15 ", kind: "percent", value: 15, duration: "repeating", duration_months: 3 },
          {
            code: "DESCONTO100",
            kind: "fixed",
            value: 10000,
            currency: "BRL",
            valid_from: "2026-01-01T00:00:00-03:00",
            valid_until: "2026-12-31T23:59:59-03:00",
            max_redemptions: 500,
            plans: ["profissional", "empresarial"],
            cycles: ["monthly"],
            duration: "once",
          },
          { code: "TUDO_GRATIS", kind: "percent", value: 100, duration: "forever", valid_until: "2026-12-31T23:59:59Z" },
          { code: "X9", kind: "percent", value: 12.34, duration: "once" },
          { code: `A${"B".repeat(39)}`, kind: "percent", value: 0.01, duration: "once" },
        ],
      }),
    );

    expect(coupons).toEqual([
      { ...couponDefaults, code: "BEMVINDO15", kind: "percent", value: 15, duration: "repeating", duration_months: 3 },
      {
        ...couponDefaults,
        code: "DESCONTO100",
        kind: "fixed",
        value: 10000,
        valid_from: "2026-01-01T00:00:00-03:00",
        valid_until: "2026-12-31T23:59:59-03:00",
        max_redemptions: 500,
        plans: ["profissional", "empresarial"],
        cycles: ["monthly"],
        duration: "once",
      },
      { ...couponDefaults, code: "TUDO_GRATIS", kind: "percent", value: 100, duration: "forever", valid_until: "2026-12-31T23:59:59Z" },
      { ...couponDefaults, code: "X9", kind: "percent", value: 12.34, duration: "once" },
      { ...couponDefaults, code: `A${"B".repeat(39)}`, kind: "percent", value: 0.01, duration: "once" },
    ]);
  });

  it("refuses codes that are not 2 to 40 letters, digits, _ or -, starting with a letter or digit", async () => {
    const { readCouponsFile } = await load();

    expect(problems(readCouponsFile, "coupons", [percent({ code: "x" }), percent({ code: "-ab" }), percent({ code: "A".repeat(41) }), percent({ code: "NO SPACE" })])).toEqual([
      `  coupons item 1 ("x"): code: must be 2-40 letters, digits, _ or -`,
      `  coupons item 2 ("-ab"): code: must be 2-40 letters, digits, _ or -`,
      `  coupons item 3 ("${"A".repeat(41)}"): code: must be 2-40 letters, digits, _ or -`,
      `  coupons item 4 ("NO SPACE"): code: must be 2-40 letters, digits, _ or -`,
    ]);
  });

  it("refuses a percent above 100 or with more than two decimals, and a fixed value that is not whole cents", async () => {
    const { readCouponsFile } = await load();

    expect(problems(readCouponsFile, "coupons", [percent({ code: "BIG", value: 100.01 }), percent({ code: "FINE", value: 12.345 }), fixed({ code: "CENTS", value: 10.5 })])).toEqual([
      `  coupons item 1 ("BIG"): value: percent must be at most 100 with at most two decimals`,
      `  coupons item 2 ("FINE"): value: percent must be at most 100 with at most two decimals`,
      `  coupons item 3 ("CENTS"): value: a fixed value is integer cents`,
    ]);
  });

  it("wants duration_months with duration repeating, and only then", async () => {
    const { readCouponsFile } = await load();

    expect(problems(readCouponsFile, "coupons", [fixed({ code: "REP", duration: "repeating" }), fixed({ code: "ONCE3", duration: "once", duration_months: 3 }), fixed({ code: "FOREVER3", duration: "forever", duration_months: 3 })])).toEqual([
      `  coupons item 1 ("REP"): duration_months: duration_months is required with duration "repeating" and only then`,
      `  coupons item 2 ("ONCE3"): duration_months: duration_months is required with duration "repeating" and only then`,
      `  coupons item 3 ("FOREVER3"): duration_months: duration_months is required with duration "repeating" and only then`,
    ]);
  });

  it("wants valid_until strictly after valid_from, compared as instants (the same instant in two zones is refused)", async () => {
    const { readCouponsFile } = await load();

    expect(
      problems(readCouponsFile, "coupons", [
        percent({ code: "BACKWARDS", valid_from: "2026-02-01T00:00:00-03:00", valid_until: "2026-01-01T00:00:00-03:00" }),
        percent({ code: "INSTANT", valid_from: "2026-01-01T03:00:00Z", valid_until: "2026-01-01T00:00:00-03:00" }),
        percent({ code: "NOZONE", valid_from: "2026-01-01T00:00:00" }),
      ]),
    ).toEqual([
      `  coupons item 1 ("BACKWARDS"): valid_until: valid_until must be after valid_from`,
      `  coupons item 2 ("INSTANT"): valid_until: valid_until must be after valid_from`,
      `  coupons item 3 ("NOZONE"): valid_from: Invalid ISO datetime`,
    ]);
  });

  it("refuses values outside the documented sets: kind, duration, cycles, plan slugs, currency", async () => {
    const { readCouponsFile } = await load();

    expect(
      problems(readCouponsFile, "coupons", [
        percent({ code: "FREE", kind: "gift" }),
        percent({ code: "SOMETIMES", duration: "sometimes" }),
        percent({ code: "WEEKLY", cycles: ["weekly"] }),
        percent({ code: "BADPLAN", plans: ["Pro"] }),
        fixed({ code: "USD", currency: "USD" }),
      ]),
    ).toEqual([
      `  coupons item 1 ("FREE"): kind: Invalid option: expected one of "percent"|"fixed"`,
      `  coupons item 2 ("SOMETIMES"): duration: Invalid option: expected one of "once"|"forever"|"repeating"`,
      `  coupons item 3 ("WEEKLY"): cycles.0: Invalid option: expected one of "monthly"|"yearly"`,
      `  coupons item 4 ("BADPLAN"): plans.0: Invalid string: must match pattern /^[a-z0-9]+(?:-[a-z0-9]+)*$/`,
      `  coupons item 5 ("USD"): currency: Invalid input: expected "BRL"`,
    ]);
  });

  it("looks a code up whatever the case and the spaces around it", async () => {
    const { normalizeCouponCode } = await load();

    expect(normalizeCouponCode("  bemVindo15\t")).toBe("BEMVINDO15");
  });
});

describe("plan files", () => {
  const prices = { prices: { monthly: 9900, yearly: 99000 }, included_inboxes: 1, additional_inbox_prices: { monthly: 1900, yearly: 19000 } };

  it("reads plans with the documented defaults (published, sort order 0, no features), names trimmed", async () => {
    const { readPlansFile } = await load();

    const plans = readPlansFile(
      jsonFile([
        { slug: "essencial", name: "  Essencial  ", ...prices },
        { slug: "plano-pro-2", name: "Pro", description: "Para equipes", currency: "BRL", features: ["API"], published: false, sort_order: 2, ...prices },
      ]),
    );

    expect(plans).toEqual([
      { slug: "essencial", name: "Essencial", description: "", currency: "BRL", features: [], published: true, sort_order: 0, ...prices },
      { slug: "plano-pro-2", name: "Pro", description: "Para equipes", currency: "BRL", features: ["API"], published: false, sort_order: 2, ...prices },
    ]);
  });

  it("refuses slugs other than lower-case letters and digits in words joined by single dashes, and blank names", async () => {
    const { readPlansFile } = await load();

    expect(
      problems(readPlansFile, "plans", [
        { slug: "Pro", name: "x", ...prices },
        { slug: "pro-", name: "x", ...prices },
        { slug: "-pro", name: "x", ...prices },
        { slug: "pro--max", name: "x", ...prices },
        { slug: "ok", name: "   ", ...prices },
      ]),
    ).toEqual([
      `  plans item 1 ("Pro"): slug: must be lower-case letters, digits and dashes`,
      `  plans item 2 ("pro-"): slug: must be lower-case letters, digits and dashes`,
      `  plans item 3 ("-pro"): slug: must be lower-case letters, digits and dashes`,
      `  plans item 4 ("pro--max"): slug: must be lower-case letters, digits and dashes`,
      `  plans item 5 ("ok"): name: Too small: expected string to have >=1 characters`,
    ]);
  });
});

describe("a coupon's validity window, at its edges", () => {
  async function rules() {
    const { checkCoupon, couponSchema, planSchema } = await load();
    const plan = planSchema().parse({ slug: "pro", name: "Pro", prices: { monthly: 100, yearly: 1000 }, included_inboxes: 1, additional_inbox_prices: { monthly: 10, yearly: 100 } });
    const reason = (def: Record<string, unknown>, at: string) => {
      const r = checkCoupon({ ...couponSchema().parse(percent({ code: "WINDOW", ...def })), redemptions: 0 }, plan, "monthly", new Date(at));
      return r.ok ? "ok" : r.reason;
    };
    return reason;
  }

  it("applies from the instant of valid_from and, before it, is not revealed", async () => {
    const reason = await rules();

    expect(reason({ valid_from: "2026-12-01T00:00:00-03:00" }, "2026-12-01T03:00:00.000Z")).toBe("ok");
    expect(reason({ valid_from: "2026-12-01T00:00:00-03:00" }, "2026-12-01T02:59:59.999Z")).toBe("not_found");
  });

  it("has expired at the instant of valid_until, not a millisecond before", async () => {
    const reason = await rules();

    expect(reason({ valid_until: "2026-12-01T00:00:00-03:00" }, "2026-12-01T02:59:59.999Z")).toBe("ok");
    expect(reason({ valid_until: "2026-12-01T00:00:00-03:00" }, "2026-12-01T03:00:00.000Z")).toBe("expired");
  });
});
