/**
 * The HTTP API's CORS configuration for the marketing site (CHECKOUT_ALLOWED_ORIGINS as CDK
 * context): API Gateway answers preflights for those origins only, and never allows the
 * api_access_token header cross-origin. Synthesized over placeholder bundles (no esbuild).
 */
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../infra/stack.ts";
import { stubBundles } from "../support/stub-bundles.ts";

const stubs = stubBundles("conversa-cors-");
const assetsDir = stubs.dir;

afterAll(() => stubs.remove());

function apiOf(context: Record<string, unknown>): Record<string, unknown> {
  const { stack } = buildApp({ app: new App({ context }), assetsDir });
  const apis = Object.values(Template.fromStack(stack).findResources("AWS::ApiGatewayV2::Api")) as { Properties: Record<string, unknown> }[];
  expect(apis).toHaveLength(1);
  return apis[0]!.Properties;
}

// The first synthesis of a process takes over 30 s on a loaded 2-core machine.
describe("checkout CORS in the stack", { timeout: 120_000 }, () => {
  it("configures the preflight for the given origins", () => {
    const props = apiOf({ stage: "development", CHECKOUT_ALLOWED_ORIGINS: "https://www.example.com.br, https://lp.example.com.br" });

    expect(props["CorsConfiguration"]).toEqual({
      AllowOrigins: ["https://www.example.com.br", "https://lp.example.com.br"],
      AllowMethods: ["GET", "POST", "OPTIONS"],
      AllowHeaders: ["content-type", "idempotency-key"],
      ExposeHeaders: ["x-request-id", "retry-after", "ratelimit", "ratelimit-policy"],
      MaxAge: 600,
    });
  });

  it("has no CORS configuration without origins", () => {
    expect(apiOf({ stage: "development" })["CorsConfiguration"]).toBeUndefined();
  });
});
