/**
 * Text that reaches a handler is well-formed Unicode: a body, a query or a path that is not valid
 * UTF-8, a malformed percent-encoding, or a lone surrogate is a 400 `bad_encoding`, never stored
 * as replacement characters. API Gateway hands the Lambda already-decoded values, so the check
 * works on the raw forms (rawPath, rawQueryString, the body's bytes) where they are available.
 */
import { BadRequest } from "../errors.ts";

export const badEncoding = (what: string) => new BadRequest("bad_encoding", `${what} is not valid UTF-8`);

const fatal = new TextDecoder("utf-8", { fatal: true });

/** The bytes as UTF-8 text, or undefined when they are not valid UTF-8. */
export function utf8(bytes: Uint8Array): string | undefined {
  try {
    return fatal.decode(bytes);
  } catch {
    return undefined;
  }
}

/** No lone surrogate (what a JSON `\ud800` escape or a lossy decoder leaves behind). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const wellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);

/** Percent-decodes to bytes; undefined on a malformed escape (`%E0%A4%A`, `%zz`, a trailing `%`). */
function percentBytes(raw: string, plusIsSpace: boolean): Uint8Array | undefined {
  const out: number[] = [];
  const text = Buffer.from(raw, "utf8");
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === 0x25) {
      const hex = String.fromCharCode(text[i + 1] ?? 0, text[i + 2] ?? 0);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) return undefined;
      out.push(parseInt(hex, 16));
      i += 2;
    } else out.push(plusIsSpace && c === 0x2b ? 0x20 : c);
  }
  return Uint8Array.from(out);
}

/** A raw URL part (a path, or one name or value of a query string) decodes to valid UTF-8. */
export function validUrlPart(raw: string, plusIsSpace = false): boolean {
  if (!wellFormed(raw)) return false;
  const bytes = percentBytes(raw, plusIsSpace);
  return bytes !== undefined && utf8(bytes) !== undefined;
}

/** Every name and value of a raw query string decodes to valid UTF-8. */
export const validQueryString = (raw: string): boolean =>
  raw.split("&").every((pair) => pair.split("=").every((part) => validUrlPart(part, true)));

/** Checks the JSON value's strings, keys included, for lone surrogates. */
export function wellFormedJson(v: unknown, depth = 0): boolean {
  if (typeof v === "string") return wellFormed(v);
  if (v === null || typeof v !== "object" || depth > 256) return true;
  if (Array.isArray(v)) return v.every((x) => wellFormedJson(x, depth + 1));
  return Object.entries(v).every(([k, x]) => wellFormed(k) && wellFormedJson(x, depth + 1));
}

export interface RawRequest {
  readonly rawPath?: string | undefined;
  readonly rawQueryString?: string | undefined;
  readonly pathParameters?: Record<string, string | undefined> | undefined;
  readonly queryStringParameters?: Record<string, string | undefined> | undefined;
  readonly body?: string | undefined;
  readonly isBase64Encoded?: boolean | undefined;
}

/** Throws 400 bad_encoding when the path or the query is not valid UTF-8 (raw and decoded forms). */
export function checkUrlEncoding(ev: RawRequest): void {
  if (ev.rawPath !== undefined && !validUrlPart(ev.rawPath)) throw badEncoding("The path");
  if (Object.values(ev.pathParameters ?? {}).some((v) => v !== undefined && !wellFormed(v))) throw badEncoding("A path parameter");
  if (ev.rawQueryString && !validQueryString(ev.rawQueryString)) throw badEncoding("The query string");
  if (Object.entries(ev.queryStringParameters ?? {}).some(([k, v]) => !wellFormed(k) || (v !== undefined && !wellFormed(v)))) {
    throw badEncoding("The query string");
  }
}
