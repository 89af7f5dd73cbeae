/**
 * Every environment variable the service reads, parsed once with zod.
 * Nothing else in functions/ or shared/ reads process.env.
 * Defaults here are the documented defaults (README "Configuration").
 */
import * as z from "zod/mini";
import { invalidIpEntries } from "./ip-entry.ts";

/**
 * One parser per variable: the raw value (undefined when unset) to the typed one, or a thrown
 * message. Plain functions behind one zod boundary (below) rather than a zod schema per variable:
 * the ~45 variables would be ~90 schema objects built in every function's cold start (~1.2 ms).
 */
type Parser<T> = (v: string | undefined) => T;

class BadValue extends Error {}

const unset = (v: string | undefined): v is undefined | "" => v === undefined || v === "";
const bool =
  (dflt: boolean): Parser<boolean> =>
  (v) =>
    unset(v) ? dflt : !["false", "0", "no", "off"].includes(v.toLowerCase());
const int =
  (dflt: number, min = 0): Parser<number> =>
  (v) => {
    if (unset(v)) return dflt;
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new BadValue(`must be an integer >= ${min}`);
    return n;
  };
const list: Parser<string[]> = (v) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const str =
  (dflt: string): Parser<string> =>
  (v) =>
    unset(v) ? dflt : v;
const optStr: Parser<string | undefined> = (v) => (unset(v) ? undefined : v);
const oneOf =
  <const T extends readonly string[]>(values: T, dflt: T[number]): Parser<T[number]> =>
  (v) => {
    if (v === undefined) return dflt;
    if (!(values as readonly string[]).includes(v)) throw new BadValue(`must be one of ${values.join(", ")}`);
    return v as T[number];
  };
const ipList: Parser<string[]> = (v) => {
  const entries = list(v);
  const bad = invalidIpEntries(entries);
  if (bad.length) throw new BadValue(`not an IP or CIDR: ${bad.join(", ")}`);
  return entries;
};

/** Sender of password-recovery mail; the stack scopes the SES permission to it. */
export const DEFAULT_MAIL_FROM = "no-reply@example.com";

const VARS = {
  APP_ENV: oneOf(["development", "production"], "development"),
  AWS_REGION: str("us-east-1"),
  TABLE_NAME: str("conversa-main"),
  THROTTLE_TABLE_NAME: str("conversa-throttle"),
  /** Local endpoints: set by the sandbox and the tests, unset in AWS. */
  DYNAMODB_ENDPOINT: optStr,
  SQS_ENDPOINT: optStr,
  S3_ENDPOINT: optStr,
  EVENTBRIDGE_ENDPOINT: optStr,
  /** Local Lambda Invoke endpoint (tests of the `$default` router); unset in AWS. */
  LAMBDA_ENDPOINT: optStr,
  /** The route functions' names are this plus their file name (the stack sets it for the `$default` router). */
  ROUTE_FUNCTION_PREFIX: str("conversa-"),
  /** Public base URL of the API (used in links the API hands out, e.g. upload URLs). */
  PUBLIC_API_URL: optStr,
  // Rate limiting (SPEC 8.5)
  ENABLE_THROTTLE: bool(true),
  THROTTLE_LIMIT: int(3000, 1),
  THROTTLE_ALLOWED_IPS: ipList,
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
  /** A webhook whose every attempt has failed for this many hours is disabled (status "disabled"). */
  WEBHOOK_DISABLE_AFTER_HOURS: int(120, 1),
  EVENT_BUS_NAME: str("default"),
  EVENTS_QUEUE_URL: optStr,
  DELIVERY_QUEUE_URL: optStr,
  // Checkout and billing
  CHECKOUT_PAGE_URL: str("https://app.example.com/checkout"),
  CHECKOUT_ALLOWED_ORIGINS: list,
  // Uploads
  UPLOADS_BUCKET: str("conversa-uploads"),
  /** Lifetime in seconds of the signed `file_url` an upload returns. */
  UPLOAD_URL_TTL_SECONDS: int(3600, 1),
  // Mail
  MAIL_FROM: str(DEFAULT_MAIL_FROM),
  MAIL_DIR: optStr,
  /** Local SES v2 endpoint (tests); unset in AWS. */
  SES_ENDPOINT: optStr,
  PASSWORD_RESET_URL: str("https://app.example.com/auth/password/edit"),
  /** POST /auth/password answers no sooner than this (ms), known e-mail or not. */
  PASSWORD_RESET_MIN_REPLY_MS: int(500, 0),
  LOG_LEVEL: oneOf(["debug", "info", "warn", "error"], "info"),
  /** CloudWatch namespace of the EMF metrics; the stack sets `Conversa/<stage>` so that stages sharing an account do not mix. */
  METRICS_NAMESPACE: str("Conversa"),
  /** EMF metric lines on stdout; the local sandbox turns them off (they are for CloudWatch). */
  METRICS_ENABLED: bool(true),
} satisfies Record<string, Parser<unknown>>;

export type Config = { readonly [K in keyof typeof VARS]: ReturnType<(typeof VARS)[K]> };

/** The environment is a record of strings (the boundary zod checks); each variable then parses. */
const schema = z.pipe(
  z.record(z.string(), z.optional(z.string())),
  z.transform((env, ctx) => {
    const out: Record<string, unknown> = {};
    for (const [name, parse] of Object.entries(VARS)) {
      try {
        out[name] = (parse as Parser<unknown>)(env[name]);
      } catch (err) {
        if (!(err instanceof BadValue)) throw err;
        ctx.issues.push({ code: "custom", message: err.message, input: env[name], path: [name] });
      }
    }
    return out as Config;
  }),
);

/** Every variable name the schema knows (the CDK stack passes these through from context). */
export const CONFIG_KEYS = Object.keys(VARS) as readonly (keyof Config)[];

type Env = Readonly<Record<string, string | undefined>>;

/** The installed configuration and the environment record it was parsed from. */
let installed: { readonly config: Config; readonly env: Env } | undefined;

function parse(env: Env): Config {
  const parsed = schema.safeParse({ ...env });
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return parsed.data;
}

/**
 * The configuration in force: the one installed by `configure`/`setConfig`, else (a deployed
 * function) process.env parsed on first use. Throws one readable error listing every bad variable.
 * A new value is a new object: clients built from it (perConfig) are rebuilt when it changes.
 */
export function config(): Config {
  installed ??= { config: parse(process.env), env: process.env };
  return installed.config;
}

/**
 * Installs the configuration parsed from `env` alone (same schema, same errors; process.env is
 * not read), e.g. the sandbox's values; returns it.
 */
export function configure(env: Env): Config {
  const c = parse(env);
  installed = { config: c, env: { ...env } };
  return c;
}

/** Installs the configuration in force with some variables replaced (`undefined` unsets one); returns it. */
export function setConfig(overrides: Env): Config {
  const base = installed?.env ?? process.env;
  return configure({ ...base, ...overrides });
}

/** Forgets the installed configuration: the next `config()` parses process.env again (tests that change it). */
export function resetConfig(): void {
  installed = undefined;
}

/**
 * A value built from the configuration (a client, a mailer), kept while the configuration in
 * force is the same object and rebuilt when it changes; `dispose` gets the replaced one.
 */
export function perConfig<T>(build: (c: Config) => T, dispose?: (old: T) => void): () => T {
  let built: { readonly config: Config; readonly value: T } | undefined;
  return () => {
    const c = config();
    if (built?.config === c) return built.value;
    if (built && dispose) dispose(built.value);
    built = { config: c, value: build(c) };
    return built.value;
  };
}

/** Throttling is on only in production, and only while ENABLE_THROTTLE is not false (SPEC 8.6). */
export function throttleActive(c: Config = config()): boolean {
  return c.APP_ENV === "production" && c.ENABLE_THROTTLE;
}

/** The configuration an environment gives, without installing it (`{}`: the documented defaults; tools/openapi.ts); same errors as config(). */
export function configFrom(env: Env): Config {
  return parse(env);
}
