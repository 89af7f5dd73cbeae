/**
 * The HTTP layer every API function uses (DESIGN.md, Shape): middy with request id,
 * error rendering, authentication, body parsing (400/413) and zod validation (422).
 * A handler receives a typed context and returns a Reply; it never sees raw events.
 */
import middy from "@middy/core";
import type { MiddlewareObj, Request } from "@middy/core";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type * as z from "zod/mini";
import { randomUUID } from "node:crypto";
import { bodyKind, DEFAULT_MAX_BODY_BYTES, routeById, type Route, type RouteId } from "../routes.ts";
import { AppError, BadRequest, PayloadTooLarge } from "../domain/errors.ts";
import type { Identity } from "../domain/identity.ts";
import { authenticate } from "../domain/auth.ts";
import { accountsRepo } from "../db/accounts-repo.ts";
import { parseOr422 } from "./validation.ts";
import { log } from "./log.ts";
import { emitMetric } from "./metrics.ts";
import { clientChecksDone, throttleByClient, throttleByIdentity } from "./throttle.ts";
import { corsHeaders } from "./cors.ts";
import { config } from "../config.ts";
import type { ReplySpec } from "./schemas/common.ts";

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

export interface Reply {
  readonly status?: number;
  /** JSON-serialised unless `text` is set; `undefined` = empty body. */
  readonly body?: unknown;
  /** A non-JSON body (e.g. text/plain transcript). */
  readonly text?: string;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
}

export interface ApiState {
  readonly route: Route;
  readonly requestId: string;
  readonly sourceIp: string;
  readonly now: Date;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  identity?: Identity;
  /** Raw request body (decoded), for routes that need the bytes (upload, idempotency). */
  rawBody?: Buffer;
  /** Headers added to the reply by middlewares (e.g. RateLimit). */
  readonly replyHeaders: Record<string, string>;
}

export interface ApiContext<B, Q> extends ApiState {
  readonly params: Readonly<Record<string, string>>;
  readonly body: B;
  readonly query: Q;
  readonly event: Event;
  /** Account routes: the authorised account id. */
  readonly accountId: number;
  readonly identity: Identity;
}

export type ApiRequest = Request<Event, Result, Error, Context> & { api: ApiState };

const JSON_TYPE = "application/json; charset=utf-8";

/** middy hands the handler only the event: the request state is found through it. */
const states = new WeakMap<Event, ApiState>();

function lowerHeaders(h: Event["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function render(reply: Reply, state: Pick<ApiState, "requestId" | "replyHeaders">): Result {
  const headers: Record<string, string> = { ...state.replyHeaders, ...reply.headers, "x-request-id": state.requestId };
  let body = "";
  if (reply.text !== undefined) {
    body = reply.text;
    headers["content-type"] = reply.contentType ?? "text/plain; charset=utf-8";
  } else if (reply.body !== undefined) {
    body = JSON.stringify(reply.body);
    headers["content-type"] = reply.contentType ?? JSON_TYPE;
  }
  return { statusCode: reply.status ?? 200, headers, body };
}

export function renderError(err: unknown, state: Pick<ApiState, "requestId" | "replyHeaders" | "route">): Result {
  if (err instanceof AppError) {
    if (err.status >= 500) log.error("request failed", { requestId: state.requestId, route: state.route.id, code: err.code });
    return render({ status: err.status, body: err.body(), headers: err.headers }, state);
  }
  // Never serialise a raw error to a client (DESIGN.md, Style 3).
  log.error("unhandled error", { requestId: state.requestId, route: state.route.id, error: describeError(err) });
  return render({ status: 500, body: { error: "Internal server error", request_id: state.requestId } }, state);
}

function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { value: String(err) };
}

/** Request id, the clock, headers; renders every error (first in, last out). */
const lifecycle = (route: Route): MiddlewareObj<Event, Result, Error, Context> => ({
  before: (request) => {
    const ev = request.event;
    const headers = lowerHeaders(ev.headers);
    const state: ApiState = {
      route,
      requestId: ev.requestContext?.requestId || randomUUID(),
      sourceIp: ev.requestContext?.http?.sourceIp ?? "0.0.0.0",
      now: new Date(),
      headers,
      replyHeaders: {},
    };
    (request as ApiRequest).api = state;
    states.set(ev, state);
  },
  after: (request) => {
    accessLog((request as ApiRequest).api, request.response?.statusCode ?? 200);
  },
  onError: (request) => {
    const api = (request as ApiRequest).api ?? { route, requestId: randomUUID(), replyHeaders: {}, now: new Date() };
    request.response = renderError(request.error, api);
    accessLog(api, request.response.statusCode ?? 500);
  },
});

/** One line per request: who, what, outcome, time (never a key, a body or personal data). */
function accessLog(api: Pick<ApiState, "route" | "requestId" | "now"> & Partial<ApiState>, status: number): void {
  const durationMs = Date.now() - api.now.getTime();
  log.info("request", {
    requestId: api.requestId,
    route: api.route.id,
    status,
    durationMs,
    ...(api.identity ? { accountId: api.identity.accountId, userId: api.identity.userId, keyId: api.identity.keyId } : {}),
  });
  if (status >= 500) emitMetric("Http5xx", 1, "Count", { Route: api.route.id }, { requestId: api.requestId });
}

/** Route-level reply headers, on errors too: CORS echo (cors.ts) and cache-control. */
const routeHeaders = (route: Route): MiddlewareObj<Event, Result, Error, Context> => ({
  before: (request) => {
    if (!route.cors && !route.cacheControl) return;
    const api = (request as ApiRequest).api;
    if (route.cors) Object.assign(api.replyHeaders, corsHeaders(api.headers["origin"], config().CHECKOUT_ALLOWED_ORIGINS));
    if (route.cacheControl) api.replyHeaders["cache-control"] = route.cacheControl;
  },
});

/**
 * `api_access_token` -> identity (+ membership and role on account routes). The client rate-limit
 * checks run meanwhile; their verdict wins over the key's (a throttled client gets 429, not 401).
 */
const auth = (route: Route): MiddlewareObj<Event, Result, Error, Context> => ({
  before: async (request) => {
    const api = (request as ApiRequest).api;
    try {
      if (route.auth !== "api_key") return;
      api.identity = await authenticate(
        accountsRepo,
        api.headers["api_access_token"],
        route.role ? { accountId: request.event.pathParameters?.["account_id"], needed: route.role } : undefined,
        api.now,
      );
    } finally {
      await clientChecksDone(api);
    }
  },
});

/** Decodes the body (base64 too), enforces the route's size limit, keeps the bytes. */
const body = (route: Route): MiddlewareObj<Event, Result, Error, Context> => ({
  before: (request) => {
    const ev = request.event;
    if (ev.body === undefined || ev.body === null || ev.body === "") return;
    const raw = ev.isBase64Encoded ? Buffer.from(ev.body, "base64") : Buffer.from(ev.body, "utf8");
    if (raw.length > (route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) throw new PayloadTooLarge();
    (request as ApiRequest).api.rawBody = raw;
  },
});

/** Bodies are JSON whatever the Content-Type says (curl -d sends form-encoded by default). */
function parseJson(raw: Buffer | undefined): unknown {
  if (!raw || raw.length === 0) return {};
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new BadRequest();
  }
}

export interface ApiOptions<B, Q> {
  /**
   * zod schema of the JSON body (omit for routes without a body), built on first use: a schema
   * module's other routes' schemas cost this function's cold start nothing (shared/lazy.ts).
   */
  readonly body?: () => z.ZodMiniType<B>;
  /** zod schema of the query string parameters, built on first use. */
  readonly query?: () => z.ZodMiniType<Q>;
  /**
   * The success reply (shared/http/schemas/*): checked on every 2xx outside production (a
   * mismatch is a 500 and an error log, so the test suite checks the contract) and documented
   * in docs/openapi.json.
   */
  readonly response: ReplySpec;
}

/** What a handler module declares, for the OpenAPI generator (tools/openapi.ts). */
export interface ApiSpec {
  readonly routeId: RouteId;
  readonly body?: () => z.ZodMiniType;
  readonly query?: () => z.ZodMiniType;
  readonly response: ReplySpec;
}

const specs = new WeakMap<object, ApiSpec>();

/** The schemas a handler built by api() was declared with. */
export const apiSpecOf = (handler: unknown): ApiSpec | undefined =>
  typeof handler === "function" ? specs.get(handler) : undefined;

/**
 * Builds a route's Lambda handler: `export const handler = api("inboxes.create", {body}, fn)`.
 */
export function api<B = undefined, Q = undefined>(
  routeId: RouteId,
  options: ApiOptions<B, Q>,
  fn: (ctx: ApiContext<B, Q>) => Promise<Reply>,
) {
  const route = routeById(routeId);
  const handler = middy<Event, Result, Error, Context>()
    .use(lifecycle(route))
    .use(routeHeaders(route))
    .use(throttleByClient(route))
    .use(auth(route))
    .use(throttleByIdentity(route))
    .use(body(route))
    .handler((event) => runHandler(route, options, fn, event));
  specs.set(handler, { routeId, ...options });
  return handler;
}

/**
 * Why a 2xx reply breaks the route's declared reply, or undefined when it keeps it.
 * Error replies are thrown AppErrors rendered by the lifecycle, so they never come here.
 */
export function replyMismatch(spec: ReplySpec, reply: Reply): string | undefined {
  const status = reply.status ?? 200;
  if (status < 200 || status > 299) return undefined;
  if (status !== spec.status) return `status ${status}, declared ${spec.status}`;
  if (reply.text !== undefined) return spec.text !== undefined ? undefined : "a text body, declared JSON";
  if (reply.body === undefined) return spec.schema === undefined ? undefined : "an empty body, declared JSON";
  if (spec.schema === undefined) return "a JSON body, declared empty";
  const r = spec.schema().safeParse(reply.body);
  if (r.success) return undefined;
  return r.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`)
    .join("; ");
}

async function runHandler<B, Q>(route: Route, options: ApiOptions<B, Q>, fn: (ctx: ApiContext<B, Q>) => Promise<Reply>, event: Event): Promise<Result> {
  const api = stateOf(event);
  // Every JSON route rejects a malformed body with 400, with or without a schema.
  const json = bodyKind(route) === "json" ? parseJson(api.rawBody) : undefined;
  const parsedBody = options.body ? parseOr422(options.body(), json) : (undefined as B);
  const query = options.query ? parseOr422(options.query(), event.queryStringParameters ?? {}) : (undefined as Q);
  const params = (event.pathParameters ?? {}) as Record<string, string>;
  const ctx: ApiContext<B, Q> = {
    ...api,
    event,
    params,
    body: parsedBody,
    query,
    accountId: api.identity?.accountId ?? 0,
    identity: api.identity ?? { userId: 0, keyId: "" },
  };
  const reply = await fn(ctx);
  if (config().APP_ENV !== "production") {
    const problem = replyMismatch(options.response, reply);
    if (problem) throw new Error(`reply of ${route.id} breaks its declared schema: ${problem}`);
  }
  return render(reply, api);
}

function stateOf(event: Event): ApiState {
  const s = states.get(event);
  if (!s) throw new Error("api state missing");
  return s;
}

