/** Builds API Gateway v2 events for a route of the table and invokes its real handler module. */
import { randomUUID } from "node:crypto";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import { routeById, type Route, type RouteId } from "../../shared/routes.ts";
import { loadHandler } from "../../infra/local/handlers.ts";

type Handler = (e: APIGatewayProxyEventV2, c: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export interface Call {
  readonly params?: Record<string, string | number>;
  readonly query?: Record<string, string>;
  readonly headers?: Record<string, string>;
  /** Object = JSON; string/Buffer = sent as is. */
  readonly body?: unknown;
  readonly key?: string;
  readonly sourceIp?: string;
  /** The invocation's time budget in seconds, when not the route's Lambda timeout. */
  readonly budgetSeconds?: number;
}

export interface Response {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
  readonly json: any;
}

export function handlerOf(route: Route): Promise<Handler> {
  return loadHandler<Handler>(route.fn);
}

export function eventFor(route: Route, call: Call = {}): APIGatewayProxyEventV2 {
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(call.params ?? {})) params[k] = String(v);
  const rawPath = route.path.replace(/\{([a-z_]+)\}/g, (_m, n: string) => encodeURIComponent(params[n] ?? "1"));
  const headers: Record<string, string> = { "content-type": "application/json", ...(call.headers ?? {}) };
  if (call.key !== undefined) headers["api_access_token"] = call.key;
  let body: string | undefined;
  let isBase64Encoded = false;
  if (Buffer.isBuffer(call.body)) {
    body = call.body.toString("base64");
    isBase64Encoded = true;
  } else if (typeof call.body === "string") body = call.body;
  else if (call.body !== undefined) body = JSON.stringify(call.body);
  const now = new Date();
  return {
    version: "2.0",
    routeKey: `${route.method} ${route.path}`,
    rawPath,
    rawQueryString: new URLSearchParams(call.query ?? {}).toString(),
    headers,
    ...(call.query ? { queryStringParameters: call.query } : {}),
    pathParameters: params,
    requestContext: {
      accountId: "test",
      apiId: "test",
      domainName: "test.local",
      domainPrefix: "test",
      http: { method: route.method, path: rawPath, protocol: "HTTP/1.1", sourceIp: call.sourceIp ?? "203.0.113.10", userAgent: "vitest" },
      requestId: randomUUID(),
      routeKey: `${route.method} ${route.path}`,
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body !== undefined ? { body } : {}),
    isBase64Encoded,
  };
}

/** As deployed: the route's Lambda timeout (middy aborts just before it), default 10 s. */
const contextFor = (route: Route, budgetSeconds = route.timeoutSeconds ?? 10) =>
  ({ awsRequestId: "test", getRemainingTimeInMillis: () => budgetSeconds * 1000 }) as unknown as Context;

export async function invoke(routeId: RouteId | Route, call: Call = {}): Promise<Response> {
  const route = typeof routeId === "string" ? routeById(routeId) : routeId;
  const handler = await handlerOf(route);
  const res = await handler(eventFor(route, call), contextFor(route, call.budgetSeconds));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers ?? {})) headers[k.toLowerCase()] = String(v);
  const text = res.body ?? "";
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.statusCode ?? 200, headers, text, json };
}
