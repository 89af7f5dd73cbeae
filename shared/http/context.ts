/**
 * The types every stage of an API request shares (api.ts builds the chain, throttle.ts holds the
 * rate-limit stages): the event and result, the handler's Reply, the request state and the three
 * handler contexts. The state is typed and rides on the invocation's Lambda context, the one object
 * middy hands both to every stage (`request.context`) and to the handler: no side tables.
 */
import type { MiddlewareObj, Request } from "@middy/core";
import type { FormFile } from "./multipart.ts";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from "aws-lambda";
import type { Identity } from "../domain/identity.ts";
import type { Verdict } from "../ratelimit/limiter.ts";
import type { Route, RouteId, routes } from "../routes.ts";

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

/** What a request carries from the first stage to the reply. */
export interface RequestState {
  readonly route: Route;
  readonly requestId: string;
  readonly sourceIp: string;
  readonly now: Date;
  /** Lower-cased header names. */
  readonly headers: Readonly<Record<string, string>>;
  /** Headers added to the reply by the stages (e.g. RateLimit), errors included. */
  readonly replyHeaders: Record<string, string>;
  /** api_key routes: who is calling, set by the auth stage. */
  identity?: Identity;
  /** Raw request body (decoded), for routes that need the bytes (upload, idempotency). */
  rawBody?: Buffer;
  /**
   * The client rate-limit checks under way, started by the client-throttle stage before the key
   * lookup; the auth stage awaits them together with the key read, and their verdict wins.
   */
  clientChecks?: Promise<void>;
  /** The tightest rate-limit verdict so far (both throttle stages contribute). */
  tightest?: Verdict;
}

/** The Lambda context of an API invocation: it carries the request state once the lifecycle stage ran. */
export type ApiLambdaContext = Context & { requestState?: RequestState };

export type ApiRequest = Request<Event, Result, Error, ApiLambdaContext>;

/** One stage of the request chain. */
export type Stage = MiddlewareObj<Event, Result, Error, ApiLambdaContext>;

/** The request state; the lifecycle stage sets it first, so a later stage always finds it. */
export function stateOf(request: Pick<ApiRequest, "context">): RequestState {
  const state = request.context.requestState;
  if (!state) throw new Error("request state missing: the lifecycle stage runs first");
  return state;
}

/** What every handler sees: the request, its parameters and its validated body and query. */
export interface PublicContext<B, Q>
  extends Pick<RequestState, "route" | "requestId" | "sourceIp" | "now" | "headers" | "replyHeaders"> {
  readonly rawBody?: Buffer;
  /** The files of a multipart body on "form" routes (shared/routes.ts), in the order sent. */
  readonly files?: readonly FormFile[];
  readonly event: Event;
  readonly params: Readonly<Record<string, string>>;
  readonly body: B;
  readonly query: Q;
}

/** api_key routes outside an account (the caller's own keys): who is calling. */
export interface KeyContext<B, Q> extends PublicContext<B, Q> {
  readonly identity: Identity;
}

/** Account routes (`{account_id}` in the path, a least role): the authorised account too. */
export interface AccountContext<B, Q> extends KeyContext<B, Q> {
  readonly accountId: number;
}

type RouteRow<Id extends RouteId> = Extract<(typeof routes)[number], { readonly id: Id }>;

/** The context a route's handler gets, read from its row of the route table (auth kind, role). */
export type ContextOf<Id extends RouteId, B, Q> =
  RouteRow<Id> extends { readonly auth: "public" }
    ? PublicContext<B, Q>
    : RouteRow<Id> extends { readonly role: string }
      ? AccountContext<B, Q>
      : KeyContext<B, Q>;
