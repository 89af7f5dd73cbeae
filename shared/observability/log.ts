/**
 * Structured JSON log lines (one object per line; CloudWatch Logs Insights reads the fields).
 * Every value passes through `redact`: secrets and personal data never reach a log line
 * (API keys, passwords, tokens, webhook secrets, customers' e-mail/phone/CNPJ), whatever the
 * caller passes. Level from LOG_LEVEL.
 */
import { config } from "../config.ts";
import { mapStack } from "./stack-trace.ts";

type Level = "debug" | "info" | "warn" | "error";
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** Field names whose values are never logged (compared lower-cased, `-` and `_` ignored). */
const SECRET_FIELDS = new Set(
  [
    "password", "password_confirmation", "passwordHash", "api_access_token", "access_token", "accessToken",
    "authorization", "cookie", "secret", "token", "reset_password_token", "key", "apiKey", "idempotency-key",
    "email", "phone", "phone_number", "cnpj", "customer", "body", "payload",
  ].map((f) => f.toLowerCase().replace(/[-_]/g, "")),
);

/** Values that look like secrets or personal data, wherever they appear in a string. */
const PATTERNS: readonly [RegExp, string][] = [
  [/\bcv_[A-Za-z0-9_-]{16,}/g, "[api-key]"],
  [/\bwhsec_[A-Za-z0-9+/=]{16,}/g, "[webhook-secret]"],
  [/[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g, "[email]"],
  [/(?<![\w-])(\+\d{1,3}[ .-]?)?\(?\d{2}\)?[ .-]?\d{4,5}[ .-]?\d{4}(?![\w-])/g, "[phone]"],
  [/\b[0-9A-Z]{2}\.?[0-9A-Z]{3}\.?[0-9A-Z]{3}\/?[0-9A-Z]{4}-?\d{2}\b/g, "[cnpj]"],
];

function scrub(s: string): string {
  let out = s;
  for (const [re, mask] of PATTERNS) out = out.replace(re, mask);
  return out;
}

export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return scrub(value);
  if (value === null || typeof value !== "object") return value;
  if (depth > 6) return "[depth]";
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value instanceof Error) return { name: value.name, message: scrub(value.message), stack: value.stack ? scrub(mapStack(value.stack)) : undefined };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SECRET_FIELDS.has(k.toLowerCase().replace(/[-_]/g, "")) ? "[redacted]" : redact(v, depth + 1);
  }
  return out;
}

function enabled(level: Level): boolean {
  try {
    return ORDER[level] >= ORDER[config().LOG_LEVEL];
  } catch {
    return true;
  }
}

function write(level: Level, message: string, fields: Record<string, unknown> = {}): void {
  if (!enabled(level)) return;
  const line = JSON.stringify({ level, message: scrub(message), timestamp: new Date().toISOString(), ...(redact(fields) as object) });
  if (level === "error" || level === "warn") console.error(line);
  else console.log(line);
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => write("debug", m, f),
  info: (m: string, f?: Record<string, unknown>) => write("info", m, f),
  warn: (m: string, f?: Record<string, unknown>) => write("warn", m, f),
  error: (m: string, f?: Record<string, unknown>) => write("error", m, f),
};
