/**
 * The HTTP API's `$default` route: requests no route key matched. A path that is a route's path
 * plus a trailing slash (`/inboxes/`) or with a slash repeated (`//api/v1/...`, read as one, as
 * Rails does) is handed, unchanged but for the path, to that route's
 * function (Lambda Invoke, so the client sees that function's reply: no redirect, same source IP
 * for the per-IP limits). A HEAD (no route key has that method) goes to the GET route's function
 * the same way, and its reply leaves without the body. Anything else is the API's 404.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { randomUUID } from "node:crypto";
import { config } from "../shared/config.ts";
import { invokeFunction } from "../shared/aws/lambda-invoke.ts";
import { matchRoute, NOT_FOUND_BODY, routedEvent } from "../shared/http/route-match.ts";
import { log } from "../shared/observability/log.ts";
import { countUnrouted } from "../shared/http/throttle.ts";
import { AppError } from "../shared/errors.ts";
import { now } from "../shared/clock.ts";

const JSON_TYPE = "application/json; charset=utf-8";

function reply(status: number, body: unknown, requestId: string, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode: status, headers: { ...headers, "content-type": JSON_TYPE, "x-request-id": requestId }, body: JSON.stringify(body) };
}

/** A path no route serves: it still counts toward the client's overall per-IP limit (429 over it), then 404. */
async function notFound(event: APIGatewayProxyEventV2, requestId: string): Promise<APIGatewayProxyStructuredResultV2> {
  try {
    await countUnrouted(event.requestContext?.http?.sourceIp ?? "0.0.0.0", now().getTime());
  } catch (err) {
    if (err instanceof AppError) return reply(err.status, err.body(), requestId, err.headers);
    throw err;
  }
  return reply(404, NOT_FOUND_BODY, requestId);
}

export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = event.requestContext?.requestId || randomUUID();
  const path = event.rawPath ?? event.requestContext?.http?.path ?? "/";
  const method = event.requestContext?.http?.method;
  let match;
  try {
    match = path.endsWith("/") || path.includes("//") || method === "HEAD" ? matchRoute(method, path) : undefined;
  } catch {
    match = undefined;
  }
  if (!match) return notFound(event, requestId);
  try {
    const text = await invokeFunction(`${config().ROUTE_FUNCTION_PREFIX}${match.route.fn}`, routedEvent(event, match));
    const result = JSON.parse(text) as APIGatewayProxyStructuredResultV2 & { errorMessage?: string };
    if (typeof result.statusCode !== "number") throw new Error(`function error: ${String(result.errorMessage ?? "no status code")}`);
    if (method === "HEAD") {
      const { body: _body, isBase64Encoded: _b64, ...head } = result;
      return head;
    }
    return result;
  } catch (err) {
    log.error("routing failed", { requestId, route: match.route.id, error: err instanceof Error ? err.message : String(err) });
    return reply(500, { error: "Internal server error", request_id: requestId }, requestId);
  }
}
