/**
 * A message's files in Chatwoot's shape (`Attachment#push_event_data`): `{id, message_id,
 * file_type, extension, data_url, thumb_url, file_size, account_id}`. Files sent with a message
 * (multipart `attachments[]`) are checked by content, written to the uploads bucket before the
 * message's transaction (an orphan file is harmless), and referenced by the message item.
 */
import { PayloadTooLarge, ValidationError } from "../../errors.ts";
import { fileTypeOf, sniff } from "../file-sniff.ts";
import { randomToken } from "../secrets.ts";
import type { BlobStore, UploadedFile } from "../uploads.ts";
import type { Attachment, Message } from "./model.ts";

/** A file part of a message form, with the field it came in. */
export interface MessageFile extends UploadedFile {
  readonly field: string;
}

/** Where files go and where their ids come from (the uploads' per-account counter, as `attachment_ids` use). */
export interface AttachmentFiles {
  readonly blobs: BlobStore;
  nextBlobId(accountId: number): Promise<number>;
  /** Lifetime of the signed data_url handed out. */
  readonly urlTtlSeconds: number;
}

const FILE_FIELDS = new Set(["attachments[]", "attachments"]);
const safeName = (name: string): string => name.replace(/[^\p{L}\p{N}._ -]/gu, "_").slice(-120) || "file";

/** Checks every part (422 naming it, 413 when one is cut at the limit) before anything is written. */
export function checkFiles(files: readonly MessageFile[]): { file: MessageFile; contentType: string; extension: string }[] {
  return files.map((file, i) => {
    const name = `attachments[${i}]`;
    if (!FILE_FIELDS.has(file.field)) throw ValidationError.field(file.field.slice(0, 100) || "attachments", "unexpected", "is not a file field (use attachments[])");
    if (file.truncated) throw new PayloadTooLarge();
    if (file.data.length === 0) throw ValidationError.field(name, "empty", "is empty");
    const sniffed = sniff(file.data, file.contentType);
    if (!sniffed) throw ValidationError.field(name, "content_type", "is of an unknown or unsupported file type");
    return { file, ...sniffed };
  });
}

/** Writes the checked files to the bucket, in parallel; the attachments to store with the message. */
export async function storeFiles(
  files: AttachmentFiles,
  accountId: number,
  conversationId: number,
  checked: ReturnType<typeof checkFiles>,
): Promise<Attachment[]> {
  return Promise.all(
    checked.map(async ({ file, contentType, extension }) => {
      const blobKey = randomToken(18);
      const fileName = safeName(file.filename);
      const objectKey = `accounts/${accountId}/conversations/${conversationId}/${blobKey}/${fileName}`;
      const [id] = await Promise.all([files.nextBlobId(accountId), files.blobs.put(objectKey, file.data, contentType, fileName)]);
      return {
        id,
        file_type: fileTypeOf(contentType),
        extension,
        content_type: contentType,
        file_name: fileName,
        file_size: file.data.length,
        blob_key: blobKey,
        object_key: objectKey,
      } satisfies Attachment;
    }),
  );
}

const extensionOf = (a: Attachment): string | null => a.extension ?? (/\.([A-Za-z0-9]{1,10})$/.exec(a.file_name)?.[1]?.toLowerCase() ?? null);

/** The message with its attachments in Chatwoot's shape, data_url signed for `urlTtlSeconds`. */
export async function withAttachmentUrls(m: Message, signer: Pick<AttachmentFiles, "blobs" | "urlTtlSeconds"> | undefined): Promise<Message> {
  if (m.attachments.length === 0) return m;
  const attachments = await Promise.all(
    m.attachments.map(async ({ object_key, ...a }) => {
      const url = signer && object_key ? await signer.blobs.signedGetUrl(object_key, a.file_name, signer.urlTtlSeconds) : "";
      return {
        ...a,
        message_id: m.id,
        account_id: m.account_id,
        extension: extensionOf(a),
        data_url: url,
        thumb_url: a.file_type === "image" ? url : "",
      };
    }),
  );
  return { ...m, attachments };
}
