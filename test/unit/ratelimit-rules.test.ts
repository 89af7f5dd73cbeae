/**
 * The rule table against the documented one: docs/internals/rate-limiting.md ("The rules": limit,
 * window, what it counts per, algorithm, what happens when the store is down) and docs/api.md
 * ("Rate limits": limit, window, counted per). The rules are built inside each test.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { configFrom } from "../../shared/config.ts";
import { buildRules, isRuleName, RULE_NAMES, SLIDING_SLICES, slidingSpec, type KeyKind, type Rule } from "../../shared/ratelimit/rules.ts";

/** The rows of the first table under `## <heading>` of a repository file, as trimmed cells. */
function tableRows(file: string, heading: string): string[][] {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), "utf8");
  const section = text.split(`\n## ${heading}\n`)[1]?.split("\n## ")[0] ?? "";
  const table = section.split("\n").filter((l) => l.startsWith("|"));
  return table.slice(2).map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
}

interface Documented {
  readonly name: string;
  /** The configuration variable that sets the limit, when it is configurable. */
  readonly variable: string | undefined;
  readonly limit: number;
  readonly windowSeconds: number;
}

const UNIT_SECONDS: Record<string, number> = { min: 60, h: 3600 };

/** "`THROTTLE_LIMIT` (3000) / 1 min", "60 / 1 h", "10 / 1 h (a quote reaches a salesperson)". */
function limitCell(name: string, cell: string): Documented {
  const m = /^(?:`(\w+)` \((\d+)\)|(\d+)) \/ (\d+) (min|h)\b/.exec(cell);
  if (!m) throw new Error(`${name}: unreadable limit "${cell}"`);
  return { name, variable: m[1], limit: Number(m[2] ?? m[3]), windowSeconds: Number(m[4]) * UNIT_SECONDS[m[5]!]! };
}

/** "IP", "account", "API key", "e-mail (trimmed, lower-cased)", "body `email`, ...". */
function perCell(cell: string): KeyKind {
  if (cell === "IP") return "ip";
  if (cell === "account") return "account";
  if (cell === "API key") return "api_key";
  if (/^(e-mail|body `email`)/.test(cell)) return "email";
  throw new Error(`unreadable "per" cell "${cell}"`);
}

const internals = tableRows("docs/internals/rate-limiting.md", "The rules");
const api = tableRows("docs/api.md", "Rate limits");
const ruleName = (cell: string) => cell.replace(/`/g, "");

describe("the rule table is the documented one", () => {
  it("names exactly the documented rules, in both documents", () => {
    expect(internals.map((r) => ruleName(r[0]!))).toEqual([...RULE_NAMES]);
    expect(api.map((r) => ruleName(r[0]!))).toEqual([...RULE_NAMES]);
    expect(Object.keys(buildRules(configFrom({})))).toEqual([...RULE_NAMES]);
  });

  it.each(internals.map((r) => [ruleName(r[0]!), r] as const))(
    "%s: limit, window, counted per, algorithm and store-down mode as in the internals table",
    (name, [, limit, per, algorithm, storeDown]) => {
      const doc = limitCell(name, limit!);
      const failure = /^closed\b/.test(storeDown!) ? "closed" : storeDown;
      const expected: Rule = {
        name: doc.name as Rule["name"],
        limit: doc.limit,
        windowSeconds: doc.windowSeconds,
        key: perCell(per!),
        algorithm: algorithm as Rule["algorithm"],
        failure: failure as Rule["failure"],
        // "one attribute per tenth of the window (a slice)"
        ...(algorithm === "sliding" ? { slices: 10 } : {}),
      };

      const rule = buildRules(configFrom({}))[name as keyof ReturnType<typeof buildRules>];

      expect(rule).toStrictEqual(expected);
    },
  );

  it.each(api.map((r) => [ruleName(r[0]!), r] as const))("%s: limit, window and counted per as in the API reference", (name, [, , limit, per]) => {
    const doc = limitCell(name, limit!);

    const rule = buildRules(configFrom({}))[name as keyof ReturnType<typeof buildRules>];

    expect({ limit: rule.limit, windowSeconds: rule.windowSeconds, key: rule.key }).toEqual({ limit: doc.limit, windowSeconds: doc.windowSeconds, key: perCell(per!) });
  });

  it("takes each configurable limit from the variable the documentation names, and only that rule changes", () => {
    const configurable = internals.map((r) => limitCell(ruleName(r[0]!), r[1]!)).filter((d) => d.variable !== undefined);
    expect(configurable.map((d) => d.name)).toEqual(["global", "contact_search", "transcript", "reports_account", "reports_user", "conversations_meta"]);
    const defaults = buildRules(configFrom({}));

    for (const d of configurable) {
      const rules = buildRules(configFrom({ [d.variable!]: String(d.limit + 7) }));

      for (const name of RULE_NAMES) expect(rules[name].limit, `${d.variable} → ${name}`).toBe(name === d.name ? d.limit + 7 : defaults[name].limit);
    }
  });

  it("sliding rules are exactly the security rules (login, password, subscribe, prefill, coupon), and they fail closed", () => {
    const rules = Object.values(buildRules(configFrom({})));

    expect(rules.filter((r) => r.algorithm === "sliding").map((r) => r.name)).toEqual([
      "login_ip",
      "login_email",
      "password_ip",
      "checkout_subscribe",
      "checkout_prefill",
      "checkout_coupon",
    ]);
    expect(rules.filter((r) => r.failure === "closed").map((r) => r.name)).toEqual(rules.filter((r) => r.algorithm === "sliding").map((r) => r.name));
  });
});

describe("sliding spec", () => {
  it("is the rule's window cut into its slices: a tenth of the window each unless the rule says otherwise", () => {
    const rules = buildRules(configFrom({}));

    expect(SLIDING_SLICES).toBe(10);
    expect(slidingSpec(rules.login_ip)).toEqual({ windowSeconds: 300, slices: 10 });
    expect(slidingSpec(rules.checkout_subscribe)).toEqual({ windowSeconds: 1800, slices: 10 });
    expect(slidingSpec({ ...rules.login_ip, slices: 5 })).toEqual({ windowSeconds: 300, slices: 5 });
    const { slices: _none, ...withoutSlices } = rules.login_email;
    expect(slidingSpec(withoutSlices)).toEqual({ windowSeconds: 900, slices: SLIDING_SLICES });
  });
});

describe("rule names", () => {
  it("a route may name the documented rules only; the delivery worker's pacing rule is not one of them", () => {
    for (const name of RULE_NAMES) expect(isRuleName(name), name).toBe(true);
    for (const name of ["webhook_rate", "", "Global", "login", "checkout_coupn"]) expect(isRuleName(name), name).toBe(false);
  });
});
