/** The error every failed call throws: the HTTP status, the API's stable `code`, the fields at fault and the request id. */

/** One field at fault in a 422 reply (`errors[]`). */
export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

export interface ConversaErrorInit {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly fields?: readonly FieldError[];
  readonly requestId?: string | undefined;
  readonly retryAfterMs?: number | undefined;
  readonly body?: unknown;
  readonly cause?: unknown;
}

export class ConversaError extends Error {
  /** HTTP status; 0 when no reply arrived (network error, aborted, deadline). */
  readonly status: number;
  /** Stable machine-readable code: the reply's `code`, else `validation_failed` (422), `internal_error` (5xx), `network_error`, `aborted` (signal or deadline), `http_<status>`. */
  readonly code: string;
  /** The fields at fault (422). */
  readonly fields: readonly FieldError[];
  /** The reply's `x-request-id`: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** What the server asked to wait (Retry-After), in milliseconds. */
  readonly retryAfterMs: number | undefined;
  /** The parsed reply body. */
  readonly body: unknown;

  constructor(init: ConversaErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "ConversaError";
    this.status = init.status;
    this.code = init.code;
    this.fields = init.fields ?? [];
    this.requestId = init.requestId;
    this.retryAfterMs = init.retryAfterMs;
    this.body = init.body;
  }
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function fieldsOf(body: Record<string, unknown>): FieldError[] {
  const errors = body["errors"];
  if (!Array.isArray(errors)) return [];
  return errors.filter(isRecord).map((e) => ({ field: String(e["field"] ?? ""), code: String(e["code"] ?? ""), message: String(e["message"] ?? "") }));
}

function defaultCode(status: number): string {
  if (status === 422) return "validation_failed";
  if (status >= 500) return "internal_error";
  return `http_${status}`;
}

/** The error of a non-2xx reply, from its status, headers and (JSON or text) body. */
export function errorFromReply(status: number, headers: Headers, body: unknown, retryAfterMs: number | undefined): ConversaError {
  const rec = isRecord(body) ? body : {};
  const code = typeof rec["code"] === "string" ? rec["code"] : defaultCode(status);
  // The sign-in's 401 says it in `errors: ["..."]` (Chatwoot's shape).
  const said = Array.isArray(rec["errors"]) ? rec["errors"].filter((e): e is string => typeof e === "string") : [];
  const message =
    typeof rec["error"] === "string"
      ? rec["error"]
      : typeof rec["message"] === "string"
        ? rec["message"]
        : said.length > 0
          ? said.join(" ")
          : typeof body === "string" && body
            ? body
            : `HTTP ${status}`;
  return new ConversaError({ status, code, message, fields: fieldsOf(rec), requestId: headers.get("x-request-id") ?? undefined, retryAfterMs, body });
}
