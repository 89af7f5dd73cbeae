/** Types of each operation's path parameters, query, body and reply, read from the generated OpenAPI types (schema.ts). */
import type { components, operations } from "./schema.ts";

export type { components, operations };

/** Every operation of the API (the route ids: `area.action`). */
export type OperationId = keyof operations & string;

type Op<K extends OperationId> = operations[K];
type ParamsOf<K extends OperationId> = Op<K> extends { parameters: infer P } ? P : {};

/** Path parameters; `account_id` may be left to the client's default account. */
type PathParamsOf<K extends OperationId> = ParamsOf<K> extends { path: infer P } ? P : undefined;
type WithDefaultAccount<P> = P extends { account_id: unknown } ? Omit<P, "account_id"> & { account_id?: number } : P;
export type PathArg<K extends OperationId> = WithDefaultAccount<PathParamsOf<K>>;

/** Query values are strings on the wire; plain-string ones also take numbers (`per: 100`). */
type Loosen<Q> = { [P in keyof Q]: string extends NonNullable<Q[P]> ? Q[P] | number : Q[P] };
export type QueryOf<K extends OperationId> = ParamsOf<K> extends { query?: infer Q } ? ([NonNullable<Q>] extends [never] ? never : unknown extends Q ? never : Loosen<NonNullable<Q>>) : never;

type RequestBodyOf<K extends OperationId> = "requestBody" extends keyof Op<K> ? NonNullable<Op<K>["requestBody" & keyof Op<K>]> : never;
export type BodyOf<K extends OperationId> = [RequestBodyOf<K>] extends [never]
  ? never
  : RequestBodyOf<K> extends { content: { "application/json": infer B } }
    ? B
    : RequestBodyOf<K> extends { content: { "multipart/form-data": unknown } }
      ? FormData
      : never;

type Responses<K extends OperationId> = Op<K>["responses"];
type OkStatus<K extends OperationId> = Extract<keyof Responses<K>, 200 | 201 | 202 | 204>;
/** The 2xx reply body of an operation (JSON); `undefined` for an empty reply (`content: never`, which any shape would match). */
export type ReplyOf<K extends OperationId> =
  Responses<K>[OkStatus<K>] extends infer R
    ? R extends { content: infer C }
      ? [C] extends [never]
        ? undefined
        : C extends { "application/json": infer J }
          ? J
          : undefined
      : undefined
    : never;

/** Per-call options beside the request's parts. */
export interface CallOptions {
  /** Extra request headers. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sends `Idempotency-Key` (kept across retries; it also makes a POST retriable after a network error). */
  readonly idempotencyKey?: string;
  /** Cancels the call, retries and waits included. */
  readonly signal?: AbortSignal;
}

type PathPart<K extends OperationId> =
  PathArg<K> extends undefined ? { readonly path?: undefined } : {} extends PathArg<K> ? { readonly path?: PathArg<K> } : { readonly path: PathArg<K> };
type QueryPart<K extends OperationId> = [QueryOf<K>] extends [never]
  ? { readonly query?: undefined }
  : {} extends QueryOf<K>
    ? { readonly query?: QueryOf<K> }
    : { readonly query: QueryOf<K> };
type BodyPart<K extends OperationId> = [BodyOf<K>] extends [never] ? { readonly body?: undefined } : { readonly body: BodyOf<K> };

/** What one call of operation K takes. */
export type RequestOf<K extends OperationId> = PathPart<K> & QueryPart<K> & BodyPart<K> & CallOptions;

/** The argument list of a call: optional when nothing in it is required. */
export type ArgsOf<K extends OperationId> = {} extends RequestOf<K> ? [request?: RequestOf<K>] : [request: RequestOf<K>];

interface CursorMeta {
  readonly has_more?: boolean;
  readonly next_cursor?: string | null;
}
/** The item type of a cursor-paged list reply: `{payload: T[], meta}` or Chatwoot's `{data: {payload: T[], meta}}`. */
export type ItemOf<R> = R extends { payload: (infer T)[]; meta: CursorMeta }
  ? T
  : R extends { data: { payload: (infer T)[]; meta: CursorMeta } }
    ? T
    : never;

/** Operations whose replies page by cursor (`meta.next_cursor`). */
export type PagedOperationId = { [K in OperationId]: [ItemOf<ReplyOf<K>>] extends [never] ? never : K }[OperationId];

/** The events a webhook can subscribe to. */
export type WebhookEventName = components["schemas"]["Webhook"]["subscriptions"][number];
