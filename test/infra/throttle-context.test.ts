/**
 * An operator sets every throttle variable at deploy time (`-c THROTTLE_LIMIT=...`): the stack
 * passes them through to every function. Synthesized over stub bundles (no esbuild needed).
 */
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../infra/stack.ts";
import { CONFIG_KEYS } from "../../shared/config.ts";
import { stubBundles, type StubBundles } from "../support/stub-bundles.ts";

const CONTEXT = {
  ENABLE_THROTTLE: "false",
  THROTTLE_LIMIT: 4000,
  THROTTLE_ALLOWED_IPS: ["10.0.0.0/8", "2001:db8::/32"],
  THROTTLE_TIMEOUT_MS: "800",
  RATE_LIMIT_CONTACT_SEARCH: "101",
  RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL: "1001",
  RATE_LIMIT_REPORTS_API_USER_LEVEL: "102",
  RATE_LIMIT_CONVERSATION_TRANSCRIPT: "1002",
  RATE_LIMIT_CONVERSATIONS_META: "31",
};

let stubs: StubBundles | undefined;
let template: Template;

beforeAll(async () => {
  stubs = stubBundles();
  const { stack } = buildApp({ app: new App({ context: { stage: "production", ...CONTEXT } }), assetsDir: stubs.dir });
  template = Template.fromStack(stack);
});

afterAll(() => stubs?.remove());

describe("throttle configuration from CDK context", () => {
  it("knows every throttle variable", () => {
    expect(CONFIG_KEYS).toEqual(expect.arrayContaining(Object.keys(CONTEXT)));
  });

  it("sets every one of them on every function, lists joined with commas", () => {
    const fns = Object.values(template.findResources("AWS::Lambda::Function")) as { Properties: { Environment: { Variables: Record<string, unknown> } } }[];
    expect(fns.length).toBeGreaterThan(0);
    for (const f of fns) {
      expect(f.Properties.Environment.Variables).toMatchObject({
        APP_ENV: "production",
        ENABLE_THROTTLE: "false",
        THROTTLE_LIMIT: "4000",
        THROTTLE_ALLOWED_IPS: "10.0.0.0/8,2001:db8::/32",
        THROTTLE_TIMEOUT_MS: "800",
        RATE_LIMIT_CONTACT_SEARCH: "101",
        RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL: "1001",
        RATE_LIMIT_REPORTS_API_USER_LEVEL: "102",
        RATE_LIMIT_CONVERSATION_TRANSCRIPT: "1002",
        RATE_LIMIT_CONVERSATIONS_META: "31",
      });
    }
  });

  it("gives the throttle table a TTL on expiresAt and on-demand billing", () => {
    const tables = Object.values(template.findResources("AWS::DynamoDB::Table")) as { Properties: Record<string, unknown> }[];
    const throttle = tables.filter((t) => (t.Properties["KeySchema"] as { AttributeName: string }[]).length === 1);
    expect(throttle).toHaveLength(1);
    expect(throttle[0]!.Properties).toMatchObject({
      BillingMode: "PAY_PER_REQUEST",
      TimeToLiveSpecification: { AttributeName: "expiresAt", Enabled: true },
    });
  });
});
