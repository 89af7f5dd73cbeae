/** One S3 client per container (DESIGN.md, Style 5); a local endpoint (fauxqs) uses path-style URLs. */
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { config } from "../config.ts";
import type { BlobStore } from "../domain/uploads.ts";

let client: S3Client | undefined;

export function s3(): S3Client {
  if (client) return client;
  const c = config();
  client = new S3Client({ region: c.AWS_REGION, ...(c.S3_ENDPOINT ? { endpoint: c.S3_ENDPOINT, forcePathStyle: true } : {}), maxAttempts: 3 });
  return client;
}

export function resetS3(): void {
  client?.destroy();
  client = undefined;
}

const disposition = (fileName: string) => `attachment; filename*=UTF-8''${encodeURIComponent(fileName)}`;

export const s3Blobs: BlobStore = {
  async put(objectKey, data, contentType, fileName) {
    await s3().send(
      new PutObjectCommand({ Bucket: config().UPLOADS_BUCKET, Key: objectKey, Body: data, ContentType: contentType, ContentDisposition: disposition(fileName) }),
    );
  },
  signedGetUrl(objectKey, fileName, ttlSeconds) {
    // Served as a download, never rendered inline by the browser.
    return getSignedUrl(s3(), new GetObjectCommand({ Bucket: config().UPLOADS_BUCKET, Key: objectKey, ResponseContentDisposition: disposition(fileName) }), { expiresIn: ttlSeconds });
  },
};
