/**
 * Signed AWS requests without a service client: the SDK's own signer (`@smithy/signature-v4`)
 * and HTTP handler (`@smithy/node-http-handler`), which every bundle already carries for
 * DynamoDB. Used where a whole client would cost more cold start than its one call is worth
 * (S3 uploads, SES mail); test/unit/aws-requests.test.ts holds each request to the SDK client's.
 */
import { fromEnv } from "@aws-sdk/credential-provider-env";
import { Hash } from "@smithy/core/serde";
import type { HttpRequest } from "@smithy/core/transport";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCredentialIdentity, Provider } from "@smithy/types";

export type Credentials = AwsCredentialIdentity | Provider<AwsCredentialIdentity>;

export interface SignedClient {
  readonly signer: SignatureV4;
  readonly http: NodeHttpHandler;
  /** No attempt starts later than this after the first. */
  readonly retryWindowMs: number;
}

/**
 * Per attempt: 1 s to connect, 3 s in all (enforced: `throwOnRequestTimeout`; the handler only
 * warns by default). With the retries below a call ends within ~8.5 s, inside the functions'
 * 10-s Lambda timeout, so a hung endpoint yields our error (logged, 5xx) rather than a killed
 * invocation.
 */
const CONNECT_TIMEOUT_MS = 1000;
const REQUEST_TIMEOUT_MS = 3000;
/** No attempt starts later than this after the first. */
const RETRY_WINDOW_MS = 5000;

/**
 * One signer and connection pool per service. Credentials: Lambda's role, from the environment.
 * `s3` selects S3's signing rules (the path is not escaped twice).
 */
export function signedClient(
  service: string,
  region: string,
  credentials: Credentials = fromEnv(),
  timeouts: { readonly connectMs: number; readonly requestMs: number; readonly retryWindowMs: number } = { connectMs: CONNECT_TIMEOUT_MS, requestMs: REQUEST_TIMEOUT_MS, retryWindowMs: RETRY_WINDOW_MS },
): SignedClient {
  return {
    signer: new SignatureV4({ service, region, credentials, sha256: Hash.bind(null, "sha256"), uriEscapePath: service !== "s3", applyChecksum: true }),
    http: new NodeHttpHandler({ connectionTimeout: timeouts.connectMs, requestTimeout: timeouts.requestMs, socketTimeout: timeouts.requestMs, throwOnRequestTimeout: true }),
    retryWindowMs: timeouts.retryWindowMs,
  };
}

/** A failed call: the HTTP status (undefined: no response) and the service's error code or message. */
export class AwsCallError extends Error {
  constructor(
    readonly operation: string,
    readonly status: number | undefined,
    readonly code: string,
  ) {
    super(`${operation} failed: ${status ?? "no response"} ${code}`);
    this.name = "AwsCallError";
  }
}

const MAX_ATTEMPTS = 3;
const retryable = (status: number | undefined) => status === undefined || status >= 500 || status === 429;

async function bodyText(body: unknown): Promise<string> {
  if (!body || typeof (body as AsyncIterable<Buffer>)[Symbol.asyncIterator] !== "function") return "";
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Buffer>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Signs and sends `build()`'s request (signed again per attempt: signatures are dated); 2xx
 * returns the body text. 5xx, 429 and network errors are retried (up to 3 attempts, jittered
 * backoff, none started more than `retryWindowMs` after the first); anything else throws
 * AwsCallError with `errorCode(body, headers)` or the status.
 */
export async function sendSigned(
  client: SignedClient,
  operation: string,
  build: () => HttpRequest,
  errorCode: (text: string, headers: Record<string, string>) => string | undefined,
): Promise<string> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    let status: number | undefined;
    let code: string;
    try {
      const { response } = await client.http.handle((await client.signer.sign(build())) as HttpRequest);
      status = response.statusCode;
      const text = await bodyText(response.body);
      if (status >= 200 && status < 300) return text;
      code = errorCode(text, response.headers) ?? `HTTP ${status}`;
    } catch (err) {
      code = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
    const backoff = Math.random() * 100 * 2 ** attempt;
    if (attempt >= MAX_ATTEMPTS || !retryable(status) || Date.now() - started + backoff > client.retryWindowMs) throw new AwsCallError(operation, status, code);
    await new Promise((r) => setTimeout(r, backoff));
  }
}
