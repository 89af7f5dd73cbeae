/**
 * The SSRF-safe HTTP sender: resolves the hostname itself, refuses any
 * forbidden address (ssrf.ts), then dials the checked IP through a custom `lookup`, so the TLS
 * name (SNI) and the Host header stay the hostname. No redirects are followed (3xx = failure);
 * the whole exchange is bounded by the timeout.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import { isForbiddenAddress } from "./ssrf.ts";
import { parseRetryAfter } from "./schedule.ts";

export interface SendOptions {
  readonly timeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORK: lifts the address check (sandbox and tests only). */
  readonly allowPrivate: boolean;
}

export interface SendResult {
  readonly ok: boolean;
  /** The receiver's status code; null when no response arrived. */
  readonly status: number | null;
  readonly error: string | null;
  readonly durationMs: number;
  /** Seconds from a 429/503 `Retry-After`. */
  readonly retryAfterSeconds?: number;
  /** The address guard refused the target: final, a retry would meet the same address. */
  readonly blocked?: true;
  /** The first RESPONSE_BODY_BYTES of the answer, as text (what the receiver said, for the log). */
  readonly body?: string;
}

/** How much of an answer's body is kept for the attempt log. */
export const RESPONSE_BODY_BYTES = 1024;

/** The delivery log's error when the address guard refuses the target. */
export const BLOCKED_ADDRESS = "blocked_address";

function blocked(durationMs: number): SendResult {
  return { ok: false, status: null, error: BLOCKED_ADDRESS, durationMs, blocked: true };
}

export class ForbiddenAddressError extends Error {
  readonly code = "EFORBIDDENADDRESS";
  constructor(host: string, address: string) {
    super(`refused: ${host} resolves to a non-public address (${address})`);
  }
}

/** dns.lookup with every address checked; what it returns is what the socket dials. */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    // With an error, the address and family are never read: the socket is destroyed with the error.
    // Stryker disable next-line StringLiteral: no address is read beside an error
    const fail = (err: Error) => callback(err, "", 0);
    dnsLookup(hostname, { all: true, family: options.family ?? 0, verbatim: true }, (err, addresses: LookupAddress[]) => {
      if (err) return fail(err);
      const bad = addresses.find((a) => isForbiddenAddress(a.address));
      if (!allowPrivate && bad) return fail(new ForbiddenAddressError(hostname, bad.address));
      if (addresses.length === 0) return fail(new Error(`no address for ${hostname}`));
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/**
 * Keep-alive agents, one per scheme. No per-origin socket cap: webhooks of one host (one
 * receiver service, many paths) share an origin, and a cap would make a hanging endpoint's
 * requests hold every socket while the others queue in the pool, their timeouts running.
 * What a container has in flight is bounded by its batch instead.
 */
const agents = new Map<string, HttpAgent>();
function agentFor(protocol: "http:" | "https:", allowPrivate: boolean): HttpAgent {
  const k = `${protocol}${allowPrivate}`;
  let a = agents.get(k);
  if (!a) {
    const opts = { keepAlive: true, maxSockets: Infinity, lookup: guardedLookup(allowPrivate) };
    a = protocol === "https:" ? new HttpsAgent(opts) : new HttpAgent(opts);
    agents.set(k, a);
  }
  return a;
}

const MAX_READ_BYTES = 64 * 1024;

/** POSTs `body` as JSON. Never throws: every outcome is a SendResult. */
export async function postJson(url: string, body: string, headers: Record<string, string>, opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return { ok: false, status: null, error: "invalid url", durationMs: 0 };
  }
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    return { ok: false, status: null, error: `unsupported scheme ${target.protocol}`, durationMs: 0 };
  }
  // An IP literal is never looked up: check it here.
  // Stryker disable next-line Regex: a WHATWG hostname has brackets only at its two ends (an IPv6 literal)
  const host = target.hostname.replace(/^\[|\]$/g, "");
  if (!opts.allowPrivate && isIP(host) && isForbiddenAddress(host)) return blocked(0);
  // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: the agent (agentFor, by scheme) decides the protocol; http.request and https.request differ only in a default agent never used here
  const request = target.protocol === "https:" ? httpsRequest : httpRequest;
  const payload = Buffer.from(body); // UTF-8
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (r: Omit<SendResult, "durationMs">) => {
      // Stryker disable next-line ConditionalExpression: a promise settles once; a later resolve is ignored
      if (settled) return;
      // Stryker disable next-line BooleanLiteral: a promise settles once; a later resolve is ignored
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, durationMs: elapsed() });
    };
    const fail = (err: Error) => {
      if ((err as { code?: string }).code === "EFORBIDDENADDRESS") return finish(blocked(elapsed()));
      finish({ ok: false, status: null, error: err.message || String(err) });
    };
    const req = request(
      target,
      {
        method: "POST",
        agent: agentFor(target.protocol as "http:" | "https:", opts.allowPrivate),
        headers: {
          "content-type": "application/json",
          "content-length": String(payload.length),
          "user-agent": "Conversa-Webhooks/1.0",
          ...headers,
        },
      },
      (res: IncomingMessage) => {
        let read = 0;
        const head: Buffer[] = [];
        res.on("data", (c: Buffer) => {
          head.push(c.subarray(0, Math.max(0, RESPONSE_BODY_BYTES - read))); // empty once the first RESPONSE_BODY_BYTES are kept
          read += c.length;
          if (read > MAX_READ_BYTES) res.destroy();
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const retryAfter = status === 429 || status === 503 ? parseRetryAfter(res.headers["retry-after"], Date.now()) : undefined;
          finish({
            ok,
            status,
            body: Buffer.concat(head).toString("utf8"),
            error: ok ? null : status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`,
            ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
          });
        };
        // A response emits "close" after "end" and after being destroyed, and "error" only when it has a listener.
        // Stryker disable next-line StringLiteral: "close" always follows "end"
        res.on("end", done);
        res.on("close", done);
        // Stryker disable next-line StringLiteral: "close" always follows "error"; without a listener no "error" is emitted
        res.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ ok: false, status: null, error: `timeout after ${opts.timeoutMs} ms` });
      req.destroy();
    }, opts.timeoutMs);
    req.on("error", fail);
    req.end(payload);
  });
}
