/**
 * CORS for the marketing site's origins (CHECKOUT_ALLOWED_ORIGINS). One definition used by the
 * handler layer (echo on the public checkout routes), the sandbox gateway (preflight, as API
 * Gateway answers it) and the CDK stack (the HTTP API's corsPreflight).
 *
 * Only `content-type` and `idempotency-key` may be sent cross-origin: `api_access_token` is not
 * allowed, so a browser on those origins cannot call account endpoints with a key.
 */
export const CORS_ALLOW_METHODS = ["GET", "POST", "OPTIONS"] as const;
export const CORS_ALLOW_HEADERS = ["content-type", "idempotency-key"] as const;
export const CORS_EXPOSE_HEADERS = ["x-request-id", "retry-after", "ratelimit", "ratelimit-policy"] as const;
export const CORS_MAX_AGE_SECONDS = 600;

/** The value for Access-Control-Allow-Origin, or undefined when the origin is not allowed. */
export function allowedOrigin(origin: string | undefined, allowed: readonly string[]): string | undefined {
  if (allowed.includes("*")) return "*";
  if (!origin) return undefined;
  const o = origin.trim().replace(/\/+$/, "").toLowerCase();
  return allowed.some((a) => a.replace(/\/+$/, "").toLowerCase() === o) ? origin.trim() : undefined;
}

/** Headers on an actual (non-preflight) response. */
export function corsHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  if (allowed.length === 0) return {};
  const allow = allowedOrigin(origin, allowed);
  return {
    vary: "origin",
    ...(allow ? { "access-control-allow-origin": allow, "access-control-expose-headers": CORS_EXPOSE_HEADERS.join(",") } : {}),
  };
}

/** Headers of a preflight answer (204); only the CORS ones when the origin is allowed. */
export function preflightHeaders(origin: string | undefined, allowed: readonly string[]): Record<string, string> {
  const allow = allowedOrigin(origin, allowed);
  if (!allow) return { vary: "origin" };
  return {
    vary: "origin",
    "access-control-allow-origin": allow,
    "access-control-allow-methods": CORS_ALLOW_METHODS.join(","),
    "access-control-allow-headers": CORS_ALLOW_HEADERS.join(","),
    "access-control-max-age": String(CORS_MAX_AGE_SECONDS),
  };
}
