/** Where message files go (the uploads bucket) and where their ids come from (the uploads counter). */
import { config } from "../config.ts";
import type { AttachmentFiles } from "../domain/conversations/attachments.ts";
import { s3Blobs } from "./s3.ts";
import { uploadsRepo } from "./uploads-repo.ts";

export const attachmentFiles = (): AttachmentFiles => ({ blobs: s3Blobs, nextBlobId: uploadsRepo.nextBlobId, urlTtlSeconds: config().UPLOAD_URL_TTL_SECONDS });
