/**
 * Typed errors. Each carries its HTTP status, a stable code and its documented body; one
 * middleware renders them. Nothing else reaches a client (a raw error never does).
 */

export interface FieldError {
  readonly field: string;
  readonly code: string;
  readonly message: string;
}

export abstract class AppError extends Error {
  abstract readonly status: number;
  abstract readonly code: string;
  readonly headers: Record<string, string> = {};
  abstract body(): unknown;
}

export class BadRequest extends AppError {
  readonly status = 400;
  constructor(
    readonly code = "bad_json",
    message = "Malformed JSON body",
  ) {
    super(message);
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

export class Unauthorized extends AppError {
  readonly status = 401;
  readonly code = "unauthorized";
  constructor() {
    super("Invalid Access Token");
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

export class ForbiddenAccount extends AppError {
  readonly status = 401;
  readonly code = "forbidden_account";
  constructor() {
    super("You are not authorized to access this account");
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

export class ForbiddenAction extends AppError {
  readonly status = 401;
  readonly code = "forbidden_action";
  constructor() {
    super("You are not authorized to do this action");
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

/** A failed login, in Chatwoot's devise body. */
export class InvalidLogin extends AppError {
  readonly status = 401;
  readonly code = "invalid_login";
  constructor() {
    super("Invalid login credentials. Please try again.");
  }
  body() {
    return { success: false, errors: [this.message] };
  }
}

export class NotFound extends AppError {
  readonly status = 404;
  readonly code = "not_found";
  constructor() {
    super("Resource could not be found");
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

export class Conflict extends AppError {
  readonly status = 409;
  constructor(
    message: string,
    readonly code = "conflict",
  ) {
    super(message);
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

/**
 * An optimistic write that lost its race more times than the retries allow (retry.ts): the
 * client may simply send the request again, after a second.
 */
export class Stale extends Conflict {
  override readonly headers: Record<string, string> = { "retry-after": "1" };
  constructor() {
    super("The resource was changed by another request; retry", "stale");
  }
}

/** The first request with this Idempotency-Key has not finished: the client sends it again after a second. */
export class IdempotencyInProgress extends Conflict {
  override readonly headers: Record<string, string> = { "retry-after": "1" };
  constructor() {
    super("A request with this Idempotency-Key is in progress; retry", "idempotency_in_progress");
  }
}

export class PayloadTooLarge extends AppError {
  readonly status = 413;
  readonly code = "too_large";
  constructor() {
    super("Payload too large");
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

export class UnsupportedMediaType extends AppError {
  readonly status = 415;
  readonly code = "unsupported_media_type";
  constructor(message = "Unsupported media type") {
    super(message);
  }
  body() {
    return { error: this.message, code: this.code };
  }
}

const humanize = (field: string): string => {
  const words = field.replace(/[._]/g, " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** 422 with the Chatwoot-style body (`message`, `attributes`, `errors`). */
export class ValidationError extends AppError {
  readonly status = 422;
  readonly code = "validation";
  constructor(
    readonly errors: readonly FieldError[],
    private readonly rawBody?: unknown,
  ) {
    super(errors.map((e) => `${humanize(e.field)} ${e.message}`).join(", ") || "Validation failed");
  }
  static field(field: string, code: string, message: string): ValidationError {
    return new ValidationError([{ field, code, message }]);
  }
  /** A 422 with a different fixed body (e.g. contact search without `q`). */
  static raw(body: unknown, message = "Validation failed"): ValidationError {
    return new ValidationError([{ field: "base", code: "invalid", message }], body);
  }
  body() {
    if (this.rawBody !== undefined) return this.rawBody;
    return {
      message: this.message,
      attributes: [...new Set(this.errors.map((e) => e.field))],
      errors: this.errors,
    };
  }
}

export interface RateLimitInfo {
  readonly rule: string;
  readonly limit: number;
  readonly windowSeconds: number;
  readonly retryAfterSeconds: number;
}

export class RateLimited extends AppError {
  readonly status = 429;
  readonly code = "rate_limited";
  constructor(readonly info: RateLimitInfo) {
    super("Too many requests");
    this.headers["retry-after"] = String(info.retryAfterSeconds);
    this.headers["ratelimit-policy"] = `"${info.rule}";q=${info.limit};w=${info.windowSeconds}`;
    this.headers["ratelimit"] = `"${info.rule}";r=0;t=${info.retryAfterSeconds}`;
  }
  body() {
    return { error: this.message, code: this.code, retry_after: this.info.retryAfterSeconds };
  }
}

export class ServiceUnavailable extends AppError {
  readonly status = 503;
  readonly code = "unavailable";
  constructor(retryAfterSeconds: number, message = "Service temporarily unavailable") {
    super(message);
    this.headers["retry-after"] = String(retryAfterSeconds);
  }
  body() {
    return { error: this.message, code: this.code };
  }
}
