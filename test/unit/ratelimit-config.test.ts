/** SPEC 8.5 configuration, the rule set built from it, and the route table's rule names. */
import { afterEach, describe, expect, it } from "vitest";
import { config, configFrom, CONFIG_KEYS, resetConfig, throttleActive } from "../../shared/config.ts";
import { buildRules, routeRuleProblems, RULE_NAMES } from "../../shared/ratelimit/rules.ts";
import { routes, type Route } from "../../shared/routes.ts";

const VARS = [
  "APP_ENV",
  "ENABLE_THROTTLE",
  "THROTTLE_LIMIT",
  "THROTTLE_ALLOWED_IPS",
  "THROTTLE_TIMEOUT_MS",
  "RATE_LIMIT_CONTACT_SEARCH",
  "RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL",
  "RATE_LIMIT_REPORTS_API_USER_LEVEL",
  "RATE_LIMIT_CONVERSATION_TRANSCRIPT",
  "RATE_LIMIT_CONVERSATIONS_META",
] as const;
const saved = Object.fromEntries(VARS.map((v) => [v, process.env[v]]));

function withEnv(env: Partial<Record<(typeof VARS)[number], string>>) {
  for (const v of VARS) delete process.env[v];
  Object.assign(process.env, env);
  resetConfig();
  return config();
}

afterEach(() => {
  for (const v of VARS) {
    if (saved[v] === undefined) delete process.env[v];
    else process.env[v] = saved[v];
  }
  resetConfig();
});

describe("throttle configuration", () => {
  it("has the SPEC 8.5 defaults", () => {
    const c = withEnv({});
    expect(c).toMatchObject({
      ENABLE_THROTTLE: true,
      THROTTLE_LIMIT: 3000,
      THROTTLE_ALLOWED_IPS: [],
      THROTTLE_TIMEOUT_MS: 1000,
      RATE_LIMIT_CONTACT_SEARCH: 100,
      RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL: 1000,
      RATE_LIMIT_REPORTS_API_USER_LEVEL: 100,
      RATE_LIMIT_CONVERSATION_TRANSCRIPT: 1000,
      RATE_LIMIT_CONVERSATIONS_META: 30,
    });
  });

  it.each([
    [{}, false],
    [{ APP_ENV: "development", ENABLE_THROTTLE: "true" }, false],
    [{ APP_ENV: "production" }, true],
    [{ APP_ENV: "production", ENABLE_THROTTLE: "false" }, false],
    [{ APP_ENV: "production", ENABLE_THROTTLE: "0" }, false],
    [{ APP_ENV: "production", ENABLE_THROTTLE: "TRUE" }, true],
  ] as const)("%j → active %s (production only)", (env, active) => {
    expect(throttleActive(withEnv(env))).toBe(active);
  });

  it("parses THROTTLE_ALLOWED_IPS as trimmed IPs and CIDRs, and rejects anything else", () => {
    expect(withEnv({ THROTTLE_ALLOWED_IPS: " 10.0.0.0/8, 2001:db8::/32 ,1.2.3.4," }).THROTTLE_ALLOWED_IPS).toEqual([
      "10.0.0.0/8",
      "2001:db8::/32",
      "1.2.3.4",
    ]);
    expect(() => withEnv({ THROTTLE_ALLOWED_IPS: "10.0.0.0/8,office" })).toThrow(/THROTTLE_ALLOWED_IPS: not an IP or CIDR: office/);
  });

  it.each(["0", "-1", "1.5", "many"])("rejects THROTTLE_LIMIT=%s", (v) => {
    expect(() => withEnv({ THROTTLE_LIMIT: v })).toThrow(/THROTTLE_LIMIT: must be an integer >= 1/);
  });

  it("feeds the limits into the rules", () => {
    const rules = buildRules(
      withEnv({
        THROTTLE_LIMIT: "5",
        RATE_LIMIT_CONTACT_SEARCH: "6",
        RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL: "7",
        RATE_LIMIT_REPORTS_API_USER_LEVEL: "8",
        RATE_LIMIT_CONVERSATION_TRANSCRIPT: "9",
        RATE_LIMIT_CONVERSATIONS_META: "10",
      }),
    );
    expect([rules.global, rules.contact_search, rules.reports_account, rules.reports_user, rules.transcript, rules.conversations_meta].map((r) => r.limit)).toEqual([
      5, 6, 7, 8, 9, 10,
    ]);
  });
});

describe("configuration parsing", () => {
  it("gives every variable its documented default from an empty environment", () => {
    const c = configFrom({});
    expect(Object.keys(c).sort()).toEqual([...CONFIG_KEYS].sort());
    expect(c).toMatchObject({ APP_ENV: "development", LOG_LEVEL: "info", WEBHOOK_TIMEOUT: 5, METRICS_ENABLED: true, CHECKOUT_ALLOWED_ORIGINS: [], DYNAMODB_ENDPOINT: undefined });
  });

  it("lists every bad variable at once, by name", () => {
    const problems = () => configFrom({ APP_ENV: "staging", LOG_LEVEL: "verbose", WEBHOOK_TIMEOUT: "0", THROTTLE_ALLOWED_IPS: "x" });
    expect(problems).toThrow(/APP_ENV/);
    let message = "";
    try {
      problems();
    } catch (err) {
      message = String(err);
    }
    for (const want of ["must be one of development, production", "must be one of debug, info, warn, error", "must be an integer >= 1", "not an IP or CIDR: x"]) {
      expect(message).toContain(want);
    }
  });

  it("treats an empty value as unset where a default exists, and parses booleans leniently", () => {
    expect(configFrom({ WEBHOOK_TIMEOUT: "", TABLE_NAME: "", METRICS_ENABLED: "OFF" })).toMatchObject({ WEBHOOK_TIMEOUT: 5, TABLE_NAME: "conversa-main", METRICS_ENABLED: false });
  });
});

describe("rules", () => {
  const rules = buildRules(withEnv({}));

  it("has every rule of the brief with its limit, window and key", () => {
    const summary = Object.fromEntries(Object.values(rules).map((r) => [r.name, `${r.limit}/${r.windowSeconds}s ${r.key} ${r.algorithm} ${r.failure}`]));
    expect(summary).toEqual({
      global: "3000/60s ip fixed open",
      contact_search: "100/60s account fixed open",
      upload: "60/3600s account fixed open",
      transcript: "1000/3600s account fixed open",
      reports_account: "1000/60s account fixed open",
      reports_user: "100/60s api_key fixed open",
      conversations_meta: "30/60s api_key fixed open",
      login_ip: "5/300s ip sliding closed",
      login_email: "10/900s email sliding closed",
      password_ip: "5/1800s ip sliding closed",
      checkout_subscribe: "5/1800s ip sliding closed",
      checkout_link: "60/60s ip fixed open",
      checkout_prefill: "20/600s ip sliding closed",
      checkout_coupon: "10/600s ip sliding closed",
      checkout_quote: "10/3600s ip fixed open",
      checkout_plans: "120/60s ip fixed open",
      widget_events: "300/60s ip fixed open",
    });
  });

  it("keys every rule by its own name and cuts sliding windows into whole-second slices", () => {
    for (const name of RULE_NAMES) {
      const r = rules[name];
      expect(r.name).toBe(name);
      if (r.algorithm === "sliding") expect(Number.isInteger(r.windowSeconds / r.slices!)).toBe(true);
    }
  });
});

describe("route table", () => {
  const rules = buildRules(withEnv({}));

  it("names only rules that exist, each in a place that can give its key", () => {
    const table: readonly Route[] = routes;
    expect(table.flatMap((r) => routeRuleProblems(r, rules))).toEqual([]);
  });

  it("would catch an unknown, duplicate, implied or misplaced rule name", () => {
    const bad = { id: "x.y", path: "/api/v1/public_checkout/x", auth: "public", throttle: ["checkout_coupn", "global", "upload", "reports_user", "checkout_link", "checkout_link"] };
    expect(routeRuleProblems(bad, rules)).toEqual([
      'x.y: unknown rule "checkout_coupn"',
      'x.y: "global" is implied, do not list it',
      'x.y: "upload" needs an API key',
      'x.y: "upload" needs {account_id}',
      'x.y: "reports_user" needs an API key',
      'x.y: "checkout_link" listed twice',
    ]);
  });
});
