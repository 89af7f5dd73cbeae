/**
 * The checkout page in the stack: its two public routes go to one function, and every function's
 * CHECKOUT_PAGE_URL is the API's own `/checkout` unless the operator gives another.
 * Synthesized over placeholder bundles (no esbuild).
 */
import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../infra/stack.ts";
import { stubBundles } from "../support/stub-bundles.ts";

const stubs = stubBundles("conversa-page-");
const assetsDir = stubs.dir;

afterAll(() => stubs.remove());

type Resource = { Properties: Record<string, unknown> };
const templateOf = (context: Record<string, unknown>) => Template.fromStack(buildApp({ app: new App({ context }), assetsDir }).stack);

function pageFunction(template: Template): Resource {
  const fns = Object.values(template.findResources("AWS::Lambda::Function")) as Resource[];
  const page = fns.filter((f) => f.Properties["Description"] === "Conversa development: functions/checkout-page.ts");
  expect(page).toHaveLength(1);
  return page[0]!;
}

// Synthesizing is slow on a shared machine: once per context, before the tests.
let byDefault: Template;
let withUrl: Template;
beforeAll(() => {
  byDefault = templateOf({ stage: "development" });
  withUrl = templateOf({ stage: "development", CHECKOUT_PAGE_URL: "https://www.example.com.br/assinar" });
});

describe("the checkout page in the stack", () => {
  it("routes GET /checkout and GET /checkout/{asset} to the page function", () => {
    const template = byDefault;

    const routes = Object.values(template.findResources("AWS::ApiGatewayV2::Route")) as Resource[];
    const keys = routes.map((r) => r.Properties["RouteKey"]);
    expect(keys).toContain("GET /checkout");
    expect(keys).toContain("GET /checkout/{asset}");
    const targets = routes
      .filter((r) => r.Properties["RouteKey"] === "GET /checkout" || r.Properties["RouteKey"] === "GET /checkout/{asset}")
      .map((r) => JSON.stringify(r.Properties["Target"]));
    expect(new Set(targets).size).toBe(1);
    expect(targets[0]).toContain("CheckoutPage");
    expect(routes.find((r) => r.Properties["RouteKey"] === "GET /checkout")!.Properties["AuthorizationType"] ?? "NONE").toBe("NONE");
  });

  it("defaults CHECKOUT_PAGE_URL to the API's /checkout", () => {
    const template = byDefault;

    const env = (pageFunction(template).Properties["Environment"] as { Variables: Record<string, unknown> }).Variables;
    const url = JSON.stringify(env["CHECKOUT_PAGE_URL"]);
    expect(url).toContain("ApiEndpoint");
    expect(url).toContain("/checkout");
    expect(env["APP_ENV"]).toBe("development");
  });

  it("keeps the operator's CHECKOUT_PAGE_URL", () => {
    const template = withUrl;

    const env = (pageFunction(template).Properties["Environment"] as { Variables: Record<string, unknown> }).Variables;
    expect(env["CHECKOUT_PAGE_URL"]).toBe("https://www.example.com.br/assinar");
  });
});
