/**
 * The two S3 calls of uploads (PutObject and a presigned GetObject URL), signed with the SDK's own
 * signer (shared/aws/signed-http.ts).
 *
 * Why not `@aws-sdk/client-s3`: it adds ~165 KB (every S3 shape, the S3 endpoint rules, XML and
 * checksum middlewares) and ~13 ms to the upload function's cold start for two requests whose
 * shape is fixed. What it would do for us is done here: virtual-hosted URLs in AWS (path-style for
 * bucket names with dots and on a local endpoint, fauxqs), S3's signing rules (no double path
 * escaping, the payload's SHA-256 in `x-amz-content-sha256`, UNSIGNED-PAYLOAD for presigned URLs),
 * retries, and S3's XML error code in the thrown error. test/unit/aws-requests.test.ts holds both
 * requests to what the SDK client sends or presigns for the same input.
 */
import { escapeUri } from "@smithy/core/protocols";
import { HttpRequest } from "@smithy/core/transport";
import { perConfig } from "../config.ts";
import { sendSigned, signedClient, type Credentials, type SignedClient } from "../aws/signed-http.ts";
import type { BlobStore } from "../domain/uploads.ts";

export interface S3Target {
  readonly region: string;
  readonly bucket: string;
  /** A local S3 (fauxqs): path-style URLs on it. Unset: AWS. */
  readonly endpoint?: string;
}

export interface S3Client extends SignedClient {
  readonly target: S3Target;
}

export function s3Client(target: S3Target, credentials?: Credentials): S3Client {
  return { target, ...signedClient("s3", target.region, credentials) };
}

/** The uploads bucket's client, from config (rebuilt when the configuration in force changes). */
const s3 = perConfig(
  (c) => s3Client({ region: c.AWS_REGION, bucket: c.UPLOADS_BUCKET, ...(c.S3_ENDPOINT ? { endpoint: c.S3_ENDPOINT } : {}) }),
  (old) => old.http.destroy(),
);

/** S3's object-key escaping: every path segment URI-escaped (RFC 3986), the slashes kept. */
const keyPath = (objectKey: string) => objectKey.split("/").map(escapeUri).join("/");

/** The request for an object, before signing. */
function objectRequest(target: S3Target, method: "GET" | "PUT", objectKey: string, extra: { headers: Record<string, string>; query: Record<string, string>; body?: Buffer }): HttpRequest {
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
    // A bucket name with dots does not fit the wildcard certificate: path-style.
    const virtual = !target.bucket.includes(".");
    hostname = virtual ? `${target.bucket}.s3.${target.region}.amazonaws.com` : `s3.${target.region}.amazonaws.com`;
    path = virtual ? `/${keyPath(objectKey)}` : `/${target.bucket}/${keyPath(objectKey)}`;
  }
  const headers = { host: port ? `${hostname}:${port}` : hostname, ...extra.headers };
  return new HttpRequest({ method, protocol, hostname, ...(port ? { port } : {}), path, headers, query: extra.query, ...(extra.body ? { body: extra.body } : {}) });
}

/** PutObject, before signing. */
export function putRequest(target: S3Target, objectKey: string, data: Buffer, contentType: string, contentDisposition: string): HttpRequest {
  return objectRequest(target, "PUT", objectKey, {
    headers: { "content-type": contentType, "content-disposition": contentDisposition, "content-length": String(data.length) },
    query: { "x-id": "PutObject" },
    body: data,
  });
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

const xmlCode = (text: string) => /<Code>([^<]+)<\/Code>/.exec(text)?.[1];
const disposition = (fileName: string) => `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`;

export const s3Blobs: BlobStore = {
  async put(objectKey, data, contentType, fileName) {
    const c = s3();
    await sendSigned(c, "S3 PutObject", () => putRequest(c.target, objectKey, data, contentType, disposition(fileName)), xmlCode);
  },
  // Served as a download, never rendered inline by the browser.
  signedGetUrl: (objectKey, fileName, ttlSeconds) => presignedGet(s3(), objectKey, disposition(fileName), ttlSeconds),
};
