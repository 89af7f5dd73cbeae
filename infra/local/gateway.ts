/**
 * The sandbox's API Gateway: turns a Node HTTP request into an API Gateway HTTP API (v2) event
 * for the route table's handler module, the same module that is deployed, and writes its reply.
 */
import { isUtf8 } from "node:buffer";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { Route } from "../../shared/routes.ts";
import { matchRoute as matchPath, NOT_FOUND_BODY, squeezeSlashes, withoutTrailingSlash } from "../../shared/http/route-match.ts";
import { config } from "../../shared/config.ts";
import { preflightHeaders } from "../../shared/http/cors.ts";
import { loadHandler } from "./handlers.ts";
import { serveDemoSite } from "./demo-site.ts";
import { hasDotSegment, requestUrl } from "./request-url.ts";
import { countUnrouted } from "../../shared/http/throttle.ts";
import { AppError } from "../../shared/errors.ts";
import { now } from "../../shared/clock.ts";

/** The client's address as API Gateway reports it (sourceIp): IPv4 without the mapped prefix. */
const sourceIpOf = (req: IncomingMessage): string => (req.socket.remoteAddress ?? "127.0.0.1").replace(/^::ffff:/, "");

/** API Gateway's own payload limit for HTTP APIs. */
const GATEWAY_MAX_BYTES = 10 * 1024 * 1024;

type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The table's route for a path, a trailing slash ignored (shared/http/route-match.ts). */
export const matchRoute = matchPath;

const TEXT_TYPES = /^(application\/(json|.*\+json|x-www-form-urlencoded|xml)|text\/)/i;

function readBody(req: IncomingMessage): Promise<Buffer | "too_large"> {
  return new Promise((res, rej) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= GATEWAY_MAX_BYTES) chunks.push(c);
    });
    req.on("end", () => res(size > GATEWAY_MAX_BYTES ? "too_large" : Buffer.concat(chunks)));
    req.on("error", rej);
  });
}

/** The event API Gateway hands the route's function; a trailing slash and repeated slashes are already gone, as the `$default` router removes them. */
export function toEvent(req: IncomingMessage, body: Buffer, route: Route, params: Record<string, string>): APIGatewayProxyEventV2 {
  const url = requestUrl(req);
  url.pathname = withoutTrailingSlash(squeezeSlashes(url.pathname));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(",") : v;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const contentType = headers["content-type"] ?? "";
  // Text that is not valid UTF-8 goes as bytes, so the handler layer sees it (400 bad_encoding).
  const binary = body.length > 0 && (!TEXT_TYPES.test(contentType) || !isUtf8(body));
  const sourceIp = sourceIpOf(req);
  const now = new Date();
  return {
    version: "2.0",
    routeKey: `${route.method} ${route.path}`,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: "local",
      apiId: "sandbox",
      domainName: headers["host"] ?? "localhost",
      domainPrefix: "localhost",
      http: { method: route.method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp, userAgent: headers["user-agent"] ?? "" },
      requestId: randomUUID(),
      routeKey: `${route.method} ${route.path}`,
      stage: "$default",
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: binary ? body.toString("base64") : body.toString("utf8") } : {}),
    isBase64Encoded: binary,
  };
}

function lambdaContext(fn: string, requestId: string, timeoutSeconds = 10): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: fn,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${fn}`,
    memoryLimitInMB: "256",
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${fn}`,
    logStreamName: "sandbox",
    getRemainingTimeInMillis: () => timeoutSeconds * 1000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A reply the sandbox's gateway writes itself (no handler ran): with an `x-request-id` like every reply. */
function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "x-request-id": randomUUID(), ...headers });
  res.end(body);
}

export async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = requestUrl(req);
  // API Gateway with a CORS configuration answers every OPTIONS itself (no route, no Lambda).
  const origins = config().CHECKOUT_ALLOWED_ORIGINS;
  if (req.method === "OPTIONS" && origins.length > 0) {
    res.writeHead(204, preflightHeaders(req.headers.origin, origins));
    res.end();
    return;
  }
  const match = hasDotSegment(req) ? undefined : matchRoute(req.method ?? "GET", url.pathname);
  if (!match) {
    // No route: the sandbox's own pages and 404s count toward the overall per-IP limit too, as
    // the `$default` router's do in AWS.
    try {
      await countUnrouted(sourceIpOf(req), now().getTime());
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      send(res, err.status, JSON.stringify(err.body()), err.headers);
      return;
    }
    if (serveDemoSite(req, res)) return;
    send(res, 404, JSON.stringify(NOT_FOUND_BODY));
    return;
  }
  const body = await readBody(req);
  if (body === "too_large") {
    // The contract's body; `message` is what API Gateway's own reply says (in AWS it is all it says).
    send(res, 413, JSON.stringify({ error: "Payload too large", code: "too_large", message: "Request Entity Too Large" }));
    return;
  }
  const event = toEvent(req, body, match.route, match.params);
  const handler = await loadHandler<LambdaHandler>(match.route.fn);
  const result = await handler(event, lambdaContext(match.route.fn, event.requestContext.requestId, match.route.timeoutSeconds));
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(result.headers ?? {})) headers[k] = String(v);
  const payload = result.body ? (result.isBase64Encoded ? Buffer.from(result.body, "base64") : Buffer.from(result.body)) : Buffer.alloc(0);
  res.writeHead(result.statusCode ?? 200, headers);
  res.end(payload);
}

export function startGateway(port: number, host = "127.0.0.1"): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      console.error(JSON.stringify({ level: "error", message: "sandbox gateway error", error: String(err) }));
      if (!res.headersSent) send(res, 500, JSON.stringify({ message: "Internal Server Error" }));
      else res.end();
    });
  });
  server.keepAliveTimeout = 5000;
  // API Gateway's own limit on a request: a body that never arrives (a Content-Length larger than
  // what is sent) ends in 30 s, not in Node's default 5 minutes.
  server.requestTimeout = 30_000;
  return new Promise((res, rej) => {
    server.once("error", rej);
    server.listen(port, host, () => {
      const addr = server.address();
      res({ server, port: typeof addr === "object" && addr ? addr.port : port });
    });
  });
}
