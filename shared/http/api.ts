/**
 * The HTTP layer every API function uses: middy with request id,
 * error rendering, authentication, body parsing (400/413) and zod validation (422).
 * A handler receives a typed context and returns a Reply; it never sees raw events.
 * The stages run in the order of API_STAGES; the request state they share is typed (context.ts).
 */
import middy from "@middy/core";
import type * as z from "zod/mini";
import { randomUUID } from "node:crypto";
import { bodyKind, DEFAULT_MAX_BODY_BYTES, routeById, type Route, type RouteId } from "../routes.ts";
import { AppError, BadRequest, PayloadTooLarge, UnsupportedMediaType } from "../errors.ts";
import type { FormBody } from "./multipart.ts";
import { urlEncodedParams } from "./form-params.ts";
import { authenticate } from "../domain/auth.ts";
import { accountsRepo } from "../db/accounts-repo.ts";
import { parseOr422 } from "./validation.ts";
import { badEncoding, checkUrlEncoding, utf8, wellFormed, wellFormedJson } from "./encoding.ts";
import { log } from "../observability/log.ts";
import { emitMetric } from "../observability/metrics.ts";
import { throttleByClient, throttleByIdentity } from "./throttle.ts";
import { corsHeaders } from "./cors.ts";
import { config } from "../config.ts";
import { now } from "../clock.ts";
import { withDeadline } from "../domain/retry.ts";
import type { ReplySpec } from "./schemas/common.ts";
import {
  stateOf,
  type AccountContext,
  type ApiLambdaContext,
  type ContextOf,
  type Event,
  type KeyContext,
  type PublicContext,
  type Reply,
  type RequestState,
  type Result,
  type Stage,
} from "./context.ts";

export type { AccountContext, KeyContext, PublicContext, Reply } from "./context.ts";

const JSON_TYPE = "application/json; charset=utf-8";

function lowerHeaders(h: Event["headers"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) if (v !== undefined) out[k.toLowerCase()] = v;
  return out;
}

export function render(reply: Reply, state: Pick<RequestState, "requestId" | "replyHeaders">): Result {
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

export function renderError(err: unknown, state: Pick<RequestState, "requestId" | "replyHeaders" | "route">): Result {
  if (err instanceof AppError) {
    if (err.status >= 500) log.error("request failed", { requestId: state.requestId, route: state.route.id, code: err.code });
    return render({ status: err.status, body: err.body(), headers: err.headers }, state);
  }
  // Never serialise a raw error to a client.
  log.error("unhandled error", { requestId: state.requestId, route: state.route.id, error: describeError(err) });
  return render({ status: 500, body: { error: "Internal server error", request_id: state.requestId } }, state);
}

function describeError(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { value: String(err) };
}

/**
 * The query as Rails reads it: a name given twice takes its last value (API Gateway joins the
 * values with commas, which would make `q=a&q=b` a search for "a,b"); `+` is a space. Read from
 * the raw query string, already checked to be valid UTF-8 with well-formed escapes.
 */
function queryOf(event: Event): Record<string, string> {
  if (event.rawQueryString === undefined) return Object.fromEntries(Object.entries(event.queryStringParameters ?? {}).filter((e): e is [string, string] => e[1] !== undefined));
  return Object.fromEntries(new URLSearchParams(event.rawQueryString));
}
/** Request id, the clock, headers; renders every error (first in, last out). */
const lifecycle = (route: Route): Stage => ({
  before: (request) => {
    const ev = request.event;
    request.context.requestState = {
      route,
      requestId: ev.requestContext?.requestId || randomUUID(),
      sourceIp: ev.requestContext?.http?.sourceIp ?? "0.0.0.0",
      now: now(),
      headers: lowerHeaders(ev.headers),
      replyHeaders: {},
    };
  },
  after: (request) => {
    accessLog(stateOf(request), request.response?.statusCode ?? 200);
  },
  onError: (request) => {
    const api = request.context.requestState ?? { route, requestId: randomUUID(), replyHeaders: {}, now: now() };
    request.response = renderError(request.error, api);
    accessLog(api, request.response.statusCode ?? 500);
  },
});

/** One line per request: who, what, outcome, time (never a key, a body or personal data). */
function accessLog(api: Pick<RequestState, "route" | "requestId" | "now"> & Partial<RequestState>, status: number): void {
  const durationMs = now().getTime() - api.now.getTime();
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
const routeHeaders = (route: Route): Stage => ({
  before: (request) => {
    if (!route.cors && !route.cacheControl) return;
    const api = stateOf(request);
    if (route.cors) Object.assign(api.replyHeaders, corsHeaders(api.headers["origin"], config().CHECKOUT_ALLOWED_ORIGINS));
    if (route.cacheControl) api.replyHeaders["cache-control"] = route.cacheControl;
  },
});

/**
 * `api_access_token` -> identity (+ membership and role on account routes), read while the client
 * rate-limit checks that the client-throttle stage started are still under way: one wait for both.
 * Their verdict wins over the key's (a throttled client gets 429, not 401); public routes only
 * wait for them.
 */
const auth = (route: Route): Stage => ({
  before: async (request) => {
    const api = stateOf(request);
    const lookup =
      route.auth === "api_key"
        ? authenticate(
            accountsRepo,
            api.headers["api_access_token"],
            route.role ? { accountId: request.event.pathParameters?.["account_id"], needed: route.role } : undefined,
            api.now,
          )
        : undefined;
    const [key, client] = await Promise.allSettled([lookup, api.clientChecks]);
    if (key.status === "fulfilled" && key.value) api.identity = key.value;
    if (client.status === "rejected") throw client.reason;
    if (key.status === "rejected") throw key.reason;
  },
});

/** A path or a query that is not valid UTF-8 is a 400 before anything reads it (encoding.ts). */
const urlEncoding = (): Stage => ({
  before: (request) => checkUrlEncoding(request.event),
});

/** Decodes the body (base64 too), enforces the route's size limit, keeps the bytes. */
const body = (route: Route): Stage => ({
  before: (request) => {
    const ev = request.event;
    if (ev.body === undefined || ev.body === null || ev.body === "") return;
    if (!ev.isBase64Encoded && !wellFormed(ev.body)) throw badEncoding("The request body");
    const raw = ev.isBase64Encoded ? Buffer.from(ev.body, "base64") : Buffer.from(ev.body, "utf8");
    if (raw.length > (route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)) throw new PayloadTooLarge();
    stateOf(request).rawBody = raw;
  },
});

/**
 * The stages of every API request, in this order (errors unwind through the lifecycle, first in,
 * last out). The client throttle starts its checks before the auth stage reads the key, and the
 * auth stage awaits both; the identity throttle needs the identity; the body is read last, so
 * a throttled or unauthenticated request never costs its decoding.
 */
export const API_STAGES: readonly { readonly name: string; readonly stage: (route: Route) => Stage }[] = [
  { name: "lifecycle", stage: lifecycle },
  { name: "route-headers", stage: routeHeaders },
  { name: "url-encoding", stage: urlEncoding },
  { name: "client-throttle", stage: throttleByClient },
  { name: "auth", stage: auth },
  { name: "identity-throttle", stage: throttleByIdentity },
  { name: "body", stage: body },
];

const isUrlEncoded = (contentType: string | undefined): boolean => contentType !== undefined && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType);

/**
 * Bodies are JSON whatever the Content-Type says (curl -d sends form-encoded by default). A body
 * sent as form-encoded that is not JSON (and does not start as JSON would) is read as Rails reads a
 * form (shared/http/form-params.ts): `name=Maria&custom_attributes[plan]=pro`.
 */
function parseJson(raw: Buffer | undefined, contentType: string | undefined): unknown {
  if (!raw || raw.length === 0) return {};
  const text = utf8(raw);
  if (text === undefined) throw badEncoding("The request body");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    if (isUrlEncoded(contentType) && !/^\s*[[{"]/.test(text)) return urlEncodedParams(text);
    throw new BadRequest();
  }
  if (!wellFormedJson(value)) throw badEncoding("The request body");
  return value;
}

const isMultipart = (contentType: string | undefined): contentType is string => contentType !== undefined && /^multipart\/form-data\s*;/i.test(contentType);

export interface ApiOptions<B, Q> {
  /**
   * zod schema of the JSON body (omit for routes without a body), built on first use: a schema
   * module's other routes' schemas cost this function's cold start nothing (shared/lazy.ts).
   */
  readonly body?: () => z.ZodMiniType<B>;
  /** zod schema of the query string parameters, built on first use. */
  readonly query?: () => z.ZodMiniType<Q>;
  /**
   * "form" routes: the multipart reader (shared/http/multipart.ts `formBody`), given by the
   * handler so that only the functions taking forms bundle the multipart parser.
   */
  readonly form?: (raw: Buffer | undefined, contentType: string, maxBytes: number) => Promise<FormBody>;
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

/** What a request keeps for its reply after its last retry of a contended write. */
export const RETRY_RESERVE_MS = 1500;

/** Retries of contended writes stop in time for the reply to leave before the function times out. */
const retryDeadline = (context: { getRemainingTimeInMillis?: () => number }): number =>
  Date.now() + Math.max(0, (context.getRemainingTimeInMillis?.() ?? 10_000) - RETRY_RESERVE_MS);

/**
 * Builds a route's Lambda handler: `export const handler = api("inboxes.create", {body}, fn)`.
 * The handler's context follows the route's row: PublicContext on public routes, KeyContext on
 * api_key routes outside an account, AccountContext (with `accountId`) on account routes.
 */
export function api<Id extends RouteId, B = undefined, Q = undefined>(
  routeId: Id,
  options: ApiOptions<B, Q>,
  fn: (ctx: ContextOf<Id, B, Q>) => Promise<Reply>,
) {
  const route = routeById(routeId);
  const chain = middy<Event, Result, Error, ApiLambdaContext>();
  for (const { stage } of API_STAGES) chain.use(stage(route));
  // The route's row chose the context type (ContextOf); contextFor builds that kind at run time.
  const run = fn as (ctx: HandlerContext<B, Q>) => Promise<Reply>;
  const handler = chain.handler((event, context) => withDeadline(retryDeadline(context), () => runHandler(route, options, run, event, stateOf({ context }))));
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

type HandlerContext<B, Q> = PublicContext<B, Q> | KeyContext<B, Q> | AccountContext<B, Q>;

/** The context of the route's kind: identity on api_key routes, the account on account routes. */
function contextFor<B, Q>(route: Route, api: RequestState, base: PublicContext<B, Q>): HandlerContext<B, Q> {
  if (route.auth === "public") return base;
  const identity = api.identity;
  if (!identity) throw new Error(`route ${route.id}: no identity after the auth stage`);
  if (!route.role) return { ...base, identity };
  if (identity.accountId === undefined) throw new Error(`route ${route.id}: no account after the auth stage`);
  return { ...base, identity, accountId: identity.accountId };
}

async function runHandler<B, Q>(
  route: Route,
  options: ApiOptions<B, Q>,
  fn: (ctx: HandlerContext<B, Q>) => Promise<Reply>,
  event: Event,
  api: RequestState,
): Promise<Result> {
  // Every JSON route rejects a malformed body with 400, with or without a schema; "form" routes
  // also take multipart/form-data, whose text fields stand for the JSON body.
  const kind = bodyKind(route);
  let form: FormBody | undefined;
  const contentType = api.headers["content-type"];
  if (isMultipart(contentType)) {
    if (kind === "form" && options.form) form = await options.form(api.rawBody, contentType, route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    else if (kind === "json" || kind === "form") throw new UnsupportedMediaType("This endpoint takes a JSON (or form-urlencoded) body, not multipart/form-data");
  }
  const json = form ? form.body : kind === "json" || kind === "form" ? parseJson(api.rawBody, contentType) : undefined;
  const parsedBody = options.body ? parseOr422(options.body(), json) : (undefined as B);
  const query = options.query ? parseOr422(options.query(), queryOf(event)) : (undefined as Q);
  const params = (event.pathParameters ?? {}) as Record<string, string>;
  const { requestId, sourceIp, now, headers, replyHeaders, rawBody } = api;
  const base: PublicContext<B, Q> = {
    route,
    requestId,
    sourceIp,
    now,
    headers,
    replyHeaders,
    ...(rawBody ? { rawBody } : {}),
    ...(form ? { files: form.files } : {}),
    event,
    params,
    body: parsedBody,
    query,
  };
  const reply = await fn(contextFor(route, api, base));
  if (config().APP_ENV !== "production") {
    const problem = replyMismatch(options.response, reply);
    if (problem) throw new Error(`reply of ${route.id} breaks its declared schema: ${problem}`);
  }
  return render(reply, api);
}
