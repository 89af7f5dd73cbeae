import { api } from "../shared/http/api.ts";
import { config } from "../shared/config.ts";
import { s3Blobs } from "../shared/db/s3.ts";
import { uploadsRepo } from "../shared/db/uploads-repo.ts";
import { MAX_UPLOAD_BYTES, storeUpload } from "../shared/domain/uploads.ts";
import { readFilePart } from "../shared/http/multipart.ts";
import { uploadReply } from "../shared/http/schemas/uploads.ts";

export const handler = api("upload.create", { response: uploadReply }, async (ctx) => {
  const file = await readFilePart(ctx.rawBody, ctx.headers["content-type"], "attachment", MAX_UPLOAD_BYTES);
  return { body: await storeUpload(s3Blobs, uploadsRepo, ctx.accountId, file, { now: ctx.now, ttlSeconds: config().UPLOAD_URL_TTL_SECONDS }) };
});
