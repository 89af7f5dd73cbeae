/**
 * Every environment variable the service reads, parsed once with zod.
 * Nothing else in functions/ or shared/ reads process.env (DESIGN.md, Style 5).
 * Defaults here are the documented defaults (README "Configuration").
 */
import * as z from "zod/mini";
import { invalidIpEntries } from "./ratelimit/ip.ts";

/** Every variable is an optional string first; one instance serves all (schemas are immutable). */
const raw = z.optional(z.string());

const bool = (dflt: boolean) =>
  z.pipe(
    raw,
    z.transform((v) => (v === undefined || v === "" ? dflt : !["false", "0", "no", "off"].includes(v.toLowerCase()))),
  );
const int = (dflt: number, min = 0) =>
  z.pipe(
    raw,
    z.transform((v, ctx) => {
      if (v === undefined || v === "") return dflt;
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) {
        ctx.issues.push({ code: "custom", message: `must be an integer >= ${min}`, input: v });
        return z.NEVER;
      }
      return n;
    }),
  );
const list = z.pipe(
  raw,
  z.transform((v) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean)),
);
const str = (dflt: string) => z.pipe(raw, z.transform((v) => (v === undefined || v === "" ? dflt : v)));
const optStr = z.pipe(raw, z.transform((v) => (v === undefined || v === "" ? undefined : v)));

/** Sender of password-recovery mail; the stack scopes the SES permission to it. */
export const DEFAULT_MAIL_FROM = "no-reply@example.com";

const schema = z.object({
  APP_ENV: z._default(z.enum(["development", "production"]), "development"),
  AWS_REGION: str("us-east-1"),
  TABLE_NAME: str("conversa-main"),
  THROTTLE_TABLE_NAME: str("conversa-throttle"),
  /** Local endpoints: set by the sandbox and the tests, unset in AWS. */
  DYNAMODB_ENDPOINT: optStr,
  SQS_ENDPOINT: optStr,
  S3_ENDPOINT: optStr,
  EVENTBRIDGE_ENDPOINT: optStr,
  /** Public base URL of the API (used in links the API hands out, e.g. upload URLs). */
  PUBLIC_API_URL: optStr,
  // Rate limiting (SPEC 8.5)
  ENABLE_THROTTLE: bool(true),
  THROTTLE_LIMIT: int(3000, 1),
  THROTTLE_ALLOWED_IPS: z.pipe(
    list,
    z.transform((entries, ctx) => {
      const bad = invalidIpEntries(entries);
      if (bad.length) {
        ctx.issues.push({ code: "custom", message: `not an IP or CIDR: ${bad.join(", ")}`, input: entries });
        return z.NEVER;
      }
      return entries;
    }),
  ),
  /** Timeout (ms) of one throttle-table call; past it a rule fails open or closed. */
  THROTTLE_TIMEOUT_MS: int(1000, 1),
  RATE_LIMIT_CONTACT_SEARCH: int(100, 1),
  RATE_LIMIT_REPORTS_API_ACCOUNT_LEVEL: int(1000, 1),
  RATE_LIMIT_REPORTS_API_USER_LEVEL: int(100, 1),
  RATE_LIMIT_CONVERSATION_TRANSCRIPT: int(1000, 1),
  RATE_LIMIT_CONVERSATIONS_META: int(30, 1),
  // Webhooks
  WEBHOOK_TIMEOUT: int(5, 1),
  WEBHOOK_RETRY_SCHEDULE: optStr,
  WEBHOOK_ALLOW_PRIVATE_NETWORK: bool(false),
  EVENT_BUS_NAME: str("default"),
  EVENTS_QUEUE_URL: optStr,
  DELIVERY_QUEUE_URL: optStr,
  // Checkout and billing
  CHECKOUT_PAGE_URL: str("https://app.example.com/checkout"),
  CHECKOUT_ALLOWED_ORIGINS: list,
  // Uploads
  UPLOADS_BUCKET: str("conversa-uploads"),
  /** Lifetime in seconds of the signed `file_url` an upload returns (issue 4). */
  UPLOAD_URL_TTL_SECONDS: int(3600, 1),
  // Mail
  MAIL_FROM: str(DEFAULT_MAIL_FROM),
  MAIL_DIR: optStr,
  /** Local SES v2 endpoint (tests); unset in AWS. */
  SES_ENDPOINT: optStr,
  PASSWORD_RESET_URL: str("https://app.example.com/auth/password/edit"),
  /** POST /auth/password answers no sooner than this (ms), known e-mail or not. */
  PASSWORD_RESET_MIN_REPLY_MS: int(500, 0),
  LOG_LEVEL: z._default(z.enum(["debug", "info", "warn", "error"]), "info"),
  /** CloudWatch namespace of the EMF metrics; the stack sets `Conversa/<stage>` so that stages sharing an account do not mix. */
  METRICS_NAMESPACE: str("Conversa"),
  /** EMF metric lines on stdout; the local sandbox turns them off (they are for CloudWatch). */
  METRICS_ENABLED: bool(true),
});

export type Config = z.infer<typeof schema>;

/** Every variable name the schema knows (the CDK stack passes these through from context). */
export const CONFIG_KEYS = Object.keys(schema.shape) as readonly (keyof Config)[];

let cached: Config | undefined;

/** The parsed configuration; throws one readable error listing every bad variable. */
export function config(): Config {
  if (cached) return cached;
  const parsed = schema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  cached = parsed.data;
  return cached;
}

/** Tests and the sandbox change the environment, then call this. */
export function resetConfig(): void {
  cached = undefined;
}

/** Throttling is on only in production, and only while ENABLE_THROTTLE is not false (SPEC 8.6). */
export function throttleActive(c: Config = config()): boolean {
  return c.APP_ENV === "production" && c.ENABLE_THROTTLE;
}

/** The configuration an environment gives, without caching (`{}`: the documented defaults; infra/openapi.ts). */
export function configFrom(env: Readonly<Record<string, string | undefined>>): Config {
  return schema.parse(env);
}
