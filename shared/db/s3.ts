/**
 * The two S3 calls of uploads (PutObject and a presigned GetObject URL), made with the AWS SDK's
 * own signer (`@smithy/signature-v4`) and HTTP handler (`@smithy/node-http-handler`), the pieces
 * every SDK client already puts in the bundle for DynamoDB.
 *
 * Why not `@aws-sdk/client-s3`: it adds ~135 KB (every S3 shape, the S3 endpoint rules, XML and
 * checksum middlewares) and ~13 ms to the upload function's cold start for two requests whose
 * shape is fixed. What it would do for us is done here: virtual-hosted URLs in AWS, path-style on
 * a local endpoint (fauxqs), S3's signing rules (no double path escaping, the payload's SHA-256 in
 * `x-amz-content-sha256`, UNSIGNED-PAYLOAD for presigned URLs), retries of 5xx and network errors,
 * and S3's XML error code in the thrown error. test/unit/s3-requests.test.ts holds both requests
 * to what the SDK client sends for the same input (URL, signed headers, signature).
 */
import { fromEnv } from "@aws-sdk/credential-provider-env";
import { escapeUri } from "@smithy/core/protocols";
import { Hash } from "@smithy/core/serde";
import { HttpRequest } from "@smithy/core/transport";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import { SignatureV4 } from "@smithy/signature-v4";
import type { AwsCredentialIdentity, Provider } from "@smithy/types";
import { config } from "../config.ts";
import type { BlobStore } from "../domain/uploads.ts";

export interface S3Target {
  readonly region: string;
  readonly bucket: string;
  /** A local S3 (fauxqs): path-style URLs on it. Unset: AWS, virtual-hosted. */
  readonly endpoint?: string;
}

interface S3Client {
  readonly target: S3Target;
  readonly signer: SignatureV4;
  readonly http: NodeHttpHandler;
}

let client: S3Client | undefined;

export function s3Client(
  target: S3Target = { region: config().AWS_REGION, bucket: config().UPLOADS_BUCKET, ...(config().S3_ENDPOINT ? { endpoint: config().S3_ENDPOINT! } : {}) },
  credentials: AwsCredentialIdentity | Provider<AwsCredentialIdentity> = fromEnv(),
): S3Client {
  const signer = new SignatureV4({ service: "s3", region: target.region, credentials, sha256: Hash.bind(null, "sha256"), uriEscapePath: false, applyChecksum: true });
  return { target, signer, http: new NodeHttpHandler({ connectionTimeout: 3000, requestTimeout: 15_000 }) };
}

function s3(): S3Client {
  return (client ??= s3Client());
}

export function resetS3(): void {
  client?.http.destroy();
  client = undefined;
}

/** S3's object-key escaping: every path segment URI-escaped (RFC 3986), the slashes kept. */
const keyPath = (objectKey: string) => objectKey.split("/").map(escapeUri).join("/");

/** The request for an object, before signing (no host header: the signer adds it). */
export function objectRequest(target: S3Target, method: "GET" | "PUT", objectKey: string, extra: { headers?: Record<string, string>; query?: Record<string, string>; body?: Buffer } = {}): HttpRequest {
  let protocol = "https:";
  let hostname: string;
  let port: number | undefined;
  let path: string;
  if (target.endpoint) {
    const u = new URL(target.endpoint);
    protocol = u.protocol;
    hostname = u.hostname;
    port = u.port ? Number(u.port) : undefined;
    path = `${u.pathname.replace(/\/$/, "")}/${target.bucket}/${keyPath(objectKey)}`;
  } else {
    // Bucket names with dots do not fit a wildcard certificate: those go path-style.
    const virtual = !target.bucket.includes(".");
    hostname = virtual ? `${target.bucket}.s3.${target.region}.amazonaws.com` : `s3.${target.region}.amazonaws.com`;
    path = virtual ? `/${keyPath(objectKey)}` : `/${target.bucket}/${keyPath(objectKey)}`;
  }
  const headers: Record<string, string> = { host: port ? `${hostname}:${port}` : hostname, ...extra.headers };
  return new HttpRequest({ method, protocol, hostname, ...(port ? { port } : {}), path, headers, query: extra.query ?? {}, ...(extra.body ? { body: extra.body } : {}) });
}

/** PutObject, signed (payload hash included) and ready to send. */
export async function signedPut(c: S3Client, objectKey: string, data: Buffer, contentType: string, contentDisposition: string, signingDate?: Date): Promise<HttpRequest> {
  const req = objectRequest(c.target, "PUT", objectKey, {
    headers: { "content-type": contentType, "content-disposition": contentDisposition, "content-length": String(data.length) },
    query: { "x-id": "PutObject" },
    body: data,
  });
  return (await c.signer.sign(req, signingDate ? { signingDate } : {})) as HttpRequest;
}

/** A presigned GetObject URL, as `@aws-sdk/s3-request-presigner` builds it. */
export async function presignedGet(c: S3Client, objectKey: string, responseContentDisposition: string, expiresIn: number, signingDate?: Date): Promise<string> {
  const req = objectRequest(c.target, "GET", objectKey, {
    headers: { "X-Amz-Content-Sha256": "UNSIGNED-PAYLOAD" },
    query: { "response-content-disposition": responseContentDisposition, "x-id": "GetObject" },
  });
  const signed = await c.signer.presign(req, { expiresIn, unsignableHeaders: new Set(["content-type"]), ...(signingDate ? { signingDate } : {}) });
  const query = Object.entries(signed.query ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${escapeUri(k)}=${escapeUri(String(v))}`)
    .join("&");
  return `${signed.protocol}//${signed.hostname}${signed.port ? `:${signed.port}` : ""}${signed.path}?${query}`;
}

export class S3Error extends Error {
  constructor(
    readonly status: number | undefined,
    readonly code: string,
  ) {
    super(`S3 PutObject failed: ${status ?? "no response"} ${code}`);
    this.name = "S3Error";
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

/** Sends a PutObject; 5xx, 429 and network errors are retried (3 attempts, jittered backoff). */
export async function putObject(c: S3Client, objectKey: string, data: Buffer, contentType: string, contentDisposition: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    let status: number | undefined;
    let code: string;
    try {
      // Signed per attempt: a signature is valid for 15 minutes and dated.
      const { response } = await c.http.handle(await signedPut(c, objectKey, data, contentType, contentDisposition));
      status = response.statusCode;
      const text = await bodyText(response.body);
      if (status >= 200 && status < 300) return;
      code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP ${status}`;
    } catch (err) {
      code = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
    }
    if (attempt >= MAX_ATTEMPTS || !retryable(status)) throw new S3Error(status, code);
    await new Promise((r) => setTimeout(r, Math.random() * 100 * 2 ** attempt));
  }
}

const disposition = (fileName: string) => `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`;

export const s3Blobs: BlobStore = {
  put: (objectKey, data, contentType, fileName) => putObject(s3(), objectKey, data, contentType, disposition(fileName)),
  // Served as a download, never rendered inline by the browser.
  signedGetUrl: (objectKey, fileName, ttlSeconds) => presignedGet(s3(), objectKey, disposition(fileName), ttlSeconds),
};
