/**
 * The `$default` router (functions/api-router.ts) against a Lambda Invoke endpoint on 127.0.0.1
 * that runs the real route functions (infra/local/handlers.ts): `<route path>/` reaches the
 * route's function with the same request, anything else is the API's 404 without an invocation.
 */
import { createServer, type Server } from "node:http";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { setConfig } from "../../shared/config.ts";
import { loadHandler } from "../../infra/local/handlers.ts";
import { handler as router } from "../../functions/api-router.ts";
import { eventFor } from "../support/api.ts";
import { routeById } from "../../shared/routes.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";

type Handler = (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;
const PREFIX = "conversa-test-";

let server: Server;
let invoked: { name: string; event: APIGatewayProxyEventV2 }[] = [];
let acc: AccountFixture;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const name = decodeURIComponent(/^\/2015-03-31\/functions\/([^/]+)\/invocations$/.exec(req.url ?? "")?.[1] ?? "");
      const event = JSON.parse(Buffer.concat(chunks).toString("utf8")) as APIGatewayProxyEventV2;
      invoked.push({ name, event });
      if (!name.startsWith(PREFIX)) {
        res.writeHead(404, { "x-amzn-errortype": "ResourceNotFoundException" }).end("{}");
        return;
      }
      loadHandler<Handler>(name.slice(PREFIX.length))
        .then((h) => h(event, { awsRequestId: "local", getRemainingTimeInMillis: () => 10_000 } as unknown as Context))
        .then((result) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result)))
        .catch((err: unknown) => res.writeHead(200, { "x-amz-function-error": "Unhandled" }).end(JSON.stringify({ errorType: "Error", errorMessage: String(err) })));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  setConfig({ LAMBDA_ENDPOINT: `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`, ROUTE_FUNCTION_PREFIX: PREFIX });
  acc = await makeAccount();
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
});

beforeEach(() => {
  invoked = [];
});

/** The event API Gateway hands the `$default` route for a method and raw path. */
function defaultEvent(method: string, rawPath: string, extra: { headers?: Record<string, string>; body?: string } = {}): APIGatewayProxyEventV2 {
  const base = eventFor(routeById("accounts.show"), { sourceIp: "198.51.100.7", ...(extra.headers ? { headers: extra.headers } : {}) });
  const { pathParameters: _none, ...rest } = base;
  return {
    ...rest,
    routeKey: "$default",
    rawPath,
    ...(extra.body !== undefined ? { body: extra.body } : {}),
    requestContext: { ...base.requestContext, routeKey: "$default", http: { ...base.requestContext.http, method, path: rawPath } },
  };
}

describe("the $default router", () => {
  it("hands `<path>/` to the route's function with the route's key, the path without the slash and its parameters", async () => {
    // Arrange
    const ev = defaultEvent("GET", `/api/v1/accounts/${acc.accountId}/inboxes/`, { headers: { api_access_token: acc.adminKey } });

    // Act
    const res = await router(ev);

    // Assert
    expect(res.statusCode).toBe(200);
    expect(JSON.parse(String(res.body))).toMatchObject({ payload: expect.any(Array) });
    expect(invoked).toHaveLength(1);
    expect(invoked[0]!.name).toBe(`${PREFIX}inboxes-list`);
    expect(invoked[0]!.event).toMatchObject({
      routeKey: "GET /api/v1/accounts/{account_id}/inboxes",
      rawPath: `/api/v1/accounts/${acc.accountId}/inboxes`,
      pathParameters: { account_id: String(acc.accountId) },
      requestContext: { requestId: ev.requestContext.requestId, http: { sourceIp: "198.51.100.7", path: `/api/v1/accounts/${acc.accountId}/inboxes` } },
    });
  });

  it("keeps the body and the function's errors: a POST with a slash gets the function's own 422", async () => {
    // Arrange
    const ev = defaultEvent("POST", `/api/v1/accounts/${acc.accountId}/inboxes/`, { headers: { api_access_token: acc.adminKey }, body: "{}" });

    // Act
    const res = await router(ev);

    // Assert
    expect(res.statusCode).toBe(422);
    expect(JSON.parse(String(res.body))).toMatchObject({ attributes: expect.arrayContaining(["name"]) });
  });

  it("reads repeated slashes as one, as Rails does: `//api/v1/...` reaches the route", async () => {
    const res = await router(defaultEvent("GET", `//api/v1/accounts/${acc.accountId}//inboxes`, { headers: { api_access_token: acc.adminKey } }));
    expect(res.statusCode).toBe(200);
    expect(invoked.map((i) => [i.name, i.event.rawPath])).toEqual([[`${PREFIX}inboxes-list`, `/api/v1/accounts/${acc.accountId}/inboxes`]]);
  });

  it("answers a HEAD as the GET route's function does, without the body", async () => {
    // Arrange: no route key has the method HEAD, so API Gateway hands it to `$default`.
    const ev = defaultEvent("HEAD", `/api/v1/accounts/${acc.accountId}/inboxes`, { headers: { api_access_token: acc.adminKey } });

    // Act
    const res = await router(ev);
    const unauthorized = await router(defaultEvent("HEAD", `/api/v1/accounts/${acc.accountId}/inboxes/`));

    // Assert
    expect(res.statusCode).toBe(200);
    expect(res.body).toBeUndefined();
    expect(res.headers).toMatchObject({ "content-type": "application/json; charset=utf-8" });
    expect(invoked.map((i) => i.name)).toEqual([`${PREFIX}inboxes-list`, `${PREFIX}inboxes-list`]);
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.body).toBeUndefined();
  });

  it.each([
    ["GET", "/nope"],
    ["GET", "/api/v1/accounts/1/nope/"],
    ["DELETE", "/api/v1/accounts/1/inboxes/"],
    ["GET", "//evil.example/api/v1/accounts/1"],
    ["HEAD", "/api/v1/accounts/1/nope"],
  ])("answers %s %s with the API's 404 and invokes nothing", async (method, path) => {
    // Act
    const res = await router(defaultEvent(method, path));

    // Assert
    expect(res.statusCode).toBe(404);
    expect(JSON.parse(String(res.body))).toEqual({ error: "Resource could not be found", code: "not_found" });
    expect(invoked).toEqual([]);
  });

  it("answers 500 without internals when the invocation fails", async () => {
    // Arrange
    setConfig({ ROUTE_FUNCTION_PREFIX: "elsewhere-" });

    // Act
    const res = await router(defaultEvent("GET", `/api/v1/accounts/${acc.accountId}/inboxes/`));

    // Assert
    setConfig({ ROUTE_FUNCTION_PREFIX: PREFIX });
    expect(res.statusCode).toBe(500);
    expect(JSON.parse(String(res.body))).toEqual({ error: "Internal server error", request_id: expect.any(String) });
  });
});
