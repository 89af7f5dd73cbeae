/** multipart/form-data from the decoded request body (busboy), with a per-file size cap. */
import busboy from "busboy";
import { BadRequest, UnsupportedMediaType } from "../domain/errors.ts";
import type { UploadedFile } from "../domain/uploads.ts";

export async function readFilePart(raw: Buffer | undefined, contentType: string | undefined, field: string, maxBytes: number): Promise<UploadedFile | undefined> {
  if (!contentType || !/^multipart\/form-data\s*;/i.test(contentType)) throw new UnsupportedMediaType("Expected multipart/form-data with an attachment part");
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: { "content-type": contentType }, limits: { fileSize: maxBytes, files: 5, fields: 20, parts: 25 } });
  } catch {
    throw new BadRequest("bad_multipart", "Malformed multipart body");
  }
  return new Promise((resolve, reject) => {
    let found: UploadedFile | undefined;
    parser.on("file", (name, stream, info) => {
      const chunks: Buffer[] = [];
      let truncated = false;
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("limit", () => (truncated = true));
      stream.on("end", () => {
        if (name === field && !found) found = { filename: info.filename ?? "file", contentType: info.mimeType || "application/octet-stream", data: Buffer.concat(chunks), truncated };
      });
    });
    parser.on("error", () => reject(new BadRequest("bad_multipart", "Malformed multipart body")));
    parser.on("close", () => resolve(found));
    parser.end(raw ?? Buffer.alloc(0));
  });
}
