/**
 * Uploads (`POST .../upload`): one multipart `attachment` of at most 4 MB, stored in a
 * private bucket; the reply carries a time-limited signed URL. Messages reference uploads by
 * `attachment_ids` (= blob_id).
 */
import { PayloadTooLarge, ValidationError } from "../errors.ts";
import { randomToken } from "./secrets.ts";

export const MAX_UPLOAD_BYTES = 4 * 1024 * 1024;

/** Types a browser would render as active content (HTML, SVG, XML) are refused. */
const ALLOWED = [
  /^image\/(png|jpe?g|gif|webp|bmp|heic|heif|tiff)$/,
  /^audio\/[a-z0-9.+-]+$/,
  /^video\/[a-z0-9.+-]+$/,
  /^application\/(pdf|zip|json|msword|vnd\.ms-excel|vnd\.ms-powerpoint|vnd\.openxmlformats-officedocument\.[a-z.]+|vnd\.oasis\.opendocument\.[a-z.]+)$/,
  /^text\/(plain|csv)$/,
];

export const isAllowedType = (contentType: string): boolean => ALLOWED.some((r) => r.test(contentType.toLowerCase()));

export interface UploadedFile {
  readonly filename: string;
  readonly contentType: string;
  readonly data: Buffer;
  /** True when the part was cut at the size limit. */
  readonly truncated: boolean;
}

export interface UploadRecord {
  readonly id: number;
  readonly account_id: number;
  readonly blob_key: string;
  readonly object_key: string;
  readonly file_name: string;
  readonly content_type: string;
  readonly file_type: "image" | "audio" | "video" | "file";
  readonly file_size: number;
  readonly created_at: number;
}

export interface BlobStore {
  put(objectKey: string, data: Buffer, contentType: string, fileName: string): Promise<void>;
  signedGetUrl(objectKey: string, fileName: string, ttlSeconds: number): Promise<string>;
}

export interface UploadStore {
  nextBlobId(accountId: number): Promise<number>;
  insertUpload(record: UploadRecord): Promise<void>;
}

const fileTypeOf = (ct: string): UploadRecord["file_type"] => {
  const major = ct.split("/")[0];
  return major === "image" || major === "audio" || major === "video" ? major : "file";
};

const safeName = (name: string): string => name.replace(/[^\p{L}\p{N}._ -]/gu, "_").slice(-120) || "file";

export async function storeUpload(
  blobs: BlobStore,
  store: UploadStore,
  accountId: number,
  file: UploadedFile | undefined,
  opts: { now: Date; ttlSeconds: number },
): Promise<{ file_url: string; blob_id: number; blob_key: string }> {
  if (!file) throw ValidationError.field("attachment", "blank", "can't be blank");
  if (file.truncated || file.data.length > MAX_UPLOAD_BYTES) throw new PayloadTooLarge();
  if (file.data.length === 0) throw ValidationError.field("attachment", "empty", "is empty");
  if (!isAllowedType(file.contentType)) throw ValidationError.field("attachment", "content_type", `has a content type that is not allowed (${file.contentType.slice(0, 100)})`);
  const blobKey = randomToken(18);
  const fileName = safeName(file.filename);
  const objectKey = `accounts/${accountId}/uploads/${blobKey}/${fileName}`;
  await blobs.put(objectKey, file.data, file.contentType, fileName);
  const id = await store.nextBlobId(accountId);
  const record: UploadRecord = {
    id,
    account_id: accountId,
    blob_key: blobKey,
    object_key: objectKey,
    file_name: fileName,
    content_type: file.contentType.toLowerCase(),
    file_type: fileTypeOf(file.contentType.toLowerCase()),
    file_size: file.data.length,
    created_at: Math.floor(opts.now.getTime() / 1000),
  };
  await store.insertUpload(record);
  return { file_url: await blobs.signedGetUrl(objectKey, fileName, opts.ttlSeconds), blob_id: id, blob_key: blobKey };
}
