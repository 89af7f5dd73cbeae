/**
 * createClient: one typed `call` per operation of the API, retries that honour Retry-After,
 * typed errors and cursor paging. The operation table (operations.ts) and the types (schema.ts)
 * are generated from the OpenAPI document.
 */
import { ConversaError, errorFromReply } from "./errors.ts";
import { OPERATIONS, type OperationInfo } from "./operations.ts";
import { backoffMs, isIdempotent, resolveRetry, retryAfterMs, serverRetryAfterMs, type ResolvedRetry, type RetryOptions } from "./retry.ts";
import type { ArgsOf, ItemOf, OperationId, PagedOperationId, ReplyOf } from "./types.ts";

export interface ClientOptions {
  /** The API's origin, e.g. `https://api.example.com` or `http://localhost:3000`. */
  readonly baseUrl: string;
  /** The API key (`api_access_token`), sent to the operations that need one. */
  readonly apiKey?: string;
  /** Default `account_id` of account operations. */
  readonly accountId?: number;
  /** The fetch to use (default: the global one). */
  readonly fetch?: typeof fetch;
  readonly retry?: RetryOptions;
}

export interface ConversaClient {
  /** Calls one operation by its id, e.g. `call("contacts.search", { query: { q: "ana" } })`. */
  call<K extends OperationId>(operation: K, ...args: ArgsOf<K>): Promise<ReplyOf<K>>;
  /** Every item of a cursor-paged list, page after page (`meta.next_cursor`). */
  paginate<K extends PagedOperationId>(operation: K, ...args: ArgsOf<K>): AsyncIterable<ItemOf<ReplyOf<K>>>;
}

/** Replies whose Retry-After sets the wait before the next attempt. */
const WAIT_STATUSES: ReadonlySet<number> = new Set([429, 503, 409]);

/** Operations that get an Idempotency-Key of their own when the caller gives none. */
const SELF_IDEMPOTENT: ReadonlySet<string> = new Set(["checkout.subscribe"]);

type AnyRequest = {
  readonly path?: Readonly<Record<string, string | number | undefined>>;
  readonly query?: Readonly<Record<string, unknown>>;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  readonly idempotencyKey?: string;
  readonly signal?: AbortSignal;
};

function urlOf(base: string, op: OperationInfo, req: AnyRequest, accountId: number | undefined): string {
  const path = op.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => {
    const value = req.path?.[name] ?? (name === "account_id" ? accountId : undefined);
    if (value === undefined) throw new TypeError(`${op.id}: path parameter ${name} is missing`);
    return encodeURIComponent(String(value));
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query ?? {})) {
    if (v === undefined || v === null) continue;
    for (const item of Array.isArray(v) ? v : [v]) qs.append(k, String(item));
  }
  const search = qs.toString();
  return `${base.replace(/\/+$/, "")}${path}${search ? `?${search}` : ""}`;
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  if (text === "") return undefined;
  if ((res.headers.get("content-type") ?? "").includes("json")) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

const networkError = (op: string, cause: unknown, code: "network_error" | "aborted" = "network_error"): ConversaError =>
  new ConversaError({ status: 0, code, message: `${op}: ${code === "aborted" ? "cancelled" : "no reply"} (${cause instanceof Error ? cause.message : String(cause)})`, cause });

/** Combines the caller's signal with the deadline's. */
function signalFor(user: AbortSignal | undefined, policy: ResolvedRetry): AbortSignal | undefined {
  const deadline = policy.deadlineMs !== undefined ? AbortSignal.timeout(policy.deadlineMs) : undefined;
  if (user && deadline) return AbortSignal.any([user, deadline]);
  return user ?? deadline;
}

export function createClient(options: ClientOptions): ConversaClient {
  const policy = resolveRetry(options.retry);
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));

  async function send(id: string, req: AnyRequest): Promise<unknown> {
    const op = (OPERATIONS as Readonly<Record<string, OperationInfo>>)[id];
    if (!op) throw new TypeError(`unknown operation ${id}`);
    const url = urlOf(options.baseUrl, op, req, options.accountId);
    const headers = new Headers({ accept: "application/json", ...(req.headers ?? {}) });
    if (op.auth === "api_key" && options.apiKey !== undefined && !headers.has("api_access_token")) headers.set("api_access_token", options.apiKey);
    const key = req.idempotencyKey ?? (SELF_IDEMPOTENT.has(id) && !headers.has("idempotency-key") ? globalThis.crypto.randomUUID() : undefined);
    if (key !== undefined) headers.set("idempotency-key", key);
    let body: string | FormData | undefined;
    if (req.body instanceof FormData) body = req.body;
    else if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      headers.set("content-type", "application/json");
    }
    const signal = signalFor(req.signal, policy);
    const started = policy.now();
    const retriable = isIdempotent(op.method, headers, id);

    for (let attempt = 1; ; attempt++) {
      let res: Response | undefined;
      let failure: unknown;
      try {
        res = await doFetch(url, { method: op.method, headers, ...(body !== undefined ? { body } : {}), ...(signal ? { signal } : {}) });
      } catch (e) {
        if (signal?.aborted) throw networkError(id, signal.reason ?? e, "aborted");
        failure = e;
      }
      if (res?.ok) return readBody(res);
      // 429 and 503 say how long to wait; so does a 409 whose write did not happen (`stale`, `idempotency_in_progress`).
      // A 503 or 409 that says so did nothing: repeating it cannot do the work twice, whatever the method.
      const waitHeader = res && WAIT_STATUSES.has(res.status) ? retryAfterMs(res.headers.get("retry-after"), policy) : undefined;
      const canRetry = res
        ? res.status === 429 || ((res.status === 503 || res.status === 409) && waitHeader !== undefined) || (res.status >= 500 && retriable)
        : retriable;
      const delayMs = waitHeader ?? backoffMs(policy, attempt);
      const outOfTime = policy.deadlineMs !== undefined && policy.now() + delayMs - started > policy.deadlineMs;
      if (!canRetry || attempt >= policy.attempts || outOfTime) {
        if (!res) throw networkError(id, failure);
        // The error says what the server asked, not the cap the client waited.
        throw errorFromReply(res.status, res.headers, await readBody(res), serverRetryAfterMs(res.headers.get("retry-after"), policy.now));
      }
      await res?.body?.cancel();
      policy.onRetry?.({ operation: id, attempt, delayMs, status: res?.status, error: failure, retryAfter: waitHeader !== undefined });
      try {
        await policy.sleep(delayMs, signal);
      } catch (e) {
        throw networkError(id, e, "aborted");
      }
    }
  }

  return {
    call<K extends OperationId>(operation: K, ...args: ArgsOf<K>): Promise<ReplyOf<K>> {
      return send(operation, (args[0] ?? {}) as AnyRequest) as Promise<ReplyOf<K>>;
    },
    async *paginate<K extends PagedOperationId>(operation: K, ...args: ArgsOf<K>): AsyncIterable<ItemOf<ReplyOf<K>>> {
      const req = (args[0] ?? {}) as AnyRequest;
      let cursor: string | undefined;
      for (;;) {
        const query = { ...(req.query ?? {}), ...(cursor !== undefined ? { cursor, page: undefined } : {}) };
        const reply = (await send(operation, { ...req, query })) as Record<string, unknown>;
        const page = (Array.isArray(reply["payload"]) ? reply : reply["data"]) as { payload: ItemOf<ReplyOf<K>>[]; meta?: { has_more?: boolean; next_cursor?: string | null } };
        yield* page.payload;
        const next = page.meta?.next_cursor;
        if (!page.meta?.has_more || !next) return;
        cursor = next;
      }
    },
  };
}
