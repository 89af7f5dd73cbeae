/** The reply of POST .../upload (the body is multipart: shared/http/multipart.ts reads it). */
import * as z from "zod/mini";
import { reply } from "./common.ts";

export const uploadReply = reply(
  () => z.looseObject({ file_url: z.string(), blob_id: z.int(), blob_key: z.string() }),
  "The stored file: pass blob_id in a message's attachment_ids; file_url is a short-lived signed URL",
);
