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
}

/**
 * One signer and connection pool per service. Credentials: Lambda's role, from the environment.
 * `s3` selects S3's signing rules (the path is not escaped twice).
 */
export function signedClient(service: string, region: string, credentials: Credentials = fromEnv()): SignedClient {
  return {
    signer: new SignatureV4({ service, region, credentials, sha256: Hash.bind(null, "sha256"), uriEscapePath: service !== "s3", applyChecksum: true }),
    http: new NodeHttpHandler({ connectionTimeout: 3000, requestTimeout: 15_000 }),
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
 * returns the body text. 5xx, 429 and network errors are retried (3 attempts, jittered backoff);
 * anything else throws AwsCallError with `errorCode(body, headers)` or the status.
 */
export async function sendSigned(
  client: SignedClient,
  operation: string,
  build: () => HttpRequest,
  errorCode: (text: string, headers: Record<string, string>) => string | undefined,
): Promise<string> {
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
    if (attempt >= MAX_ATTEMPTS || !retryable(status)) throw new AwsCallError(operation, status, code);
    await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
  }
}
