/** multipart/form-data from the decoded request body (busboy), with a per-file size cap. */
import busboy from "busboy";
import { BadRequest, UnsupportedMediaType, ValidationError } from "../errors.ts";
import type { UploadedFile } from "../domain/uploads.ts";
import { badEncoding, utf8, wellFormed } from "./encoding.ts";
import { railsParams } from "./form-params.ts";

export const isMultipart = (contentType: string | undefined): contentType is string => contentType !== undefined && /^multipart\/form-data\s*;/i.test(contentType);

export async function readFilePart(raw: Buffer | undefined, contentType: string | undefined, field: string, maxBytes: number): Promise<UploadedFile | undefined> {
  if (!isMultipart(contentType)) throw new UnsupportedMediaType("Expected multipart/form-data with an attachment part");
  const form = await readForm(raw, contentType, { maxFileBytes: maxBytes, maxFiles: 5, maxFields: 100 });
  return form.files.find((f) => f.field === field);
}

/** A file part of a form: its field name (`attachments[]`) beside the file. */
export interface FormFile extends UploadedFile {
  readonly field: string;
}

export interface Form {
  /** Text fields by name; a name sent more than once (`attachment_ids[]`) gives a list. */
  readonly fields: Record<string, string | string[]>;
  readonly files: FormFile[];
  /** More files than `maxFiles` were sent (the rest were not read). */
  readonly tooManyFiles: boolean;
}

interface Limits {
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  readonly maxFields: number;
}

/**
 * busboy decodes a text part by the charset its Content-Type names, else by `defCharset`. The
 * parts that name none are read as latin1, which keeps their bytes, so that they can be held to
 * UTF-8 (a lossy decode would store invalid bytes as U+FFFD). NO_CHARSET is a label no decoder
 * knows: under it, exactly the parts that name no charset come back undefined.
 */
const RAW = "latin1";
const NO_CHARSET = "x-conversa-no-charset";

interface Parsed {
  readonly fields: readonly (readonly [string, string | undefined])[];
  readonly files: FormFile[];
  readonly tooManyFiles: boolean;
}

function parse(raw: Buffer | undefined, contentType: string, limits: Limits, defCharset: string, withFiles: boolean): Promise<Parsed> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { "content-type": contentType },
      // Browsers send a file's name as raw UTF-8 in `filename="…"`.
      defParamCharset: "utf8",
      defCharset,
      limits: { fileSize: limits.maxFileBytes, files: limits.maxFiles, fields: limits.maxFields, parts: limits.maxFiles + limits.maxFields, fieldSize: 200_000 },
    });
  } catch {
    throw new BadRequest("bad_multipart", "Malformed multipart body");
  }
  return new Promise((resolve, reject) => {
    const fields: (readonly [string, string | undefined])[] = [];
    const files: FormFile[] = [];
    let tooManyFiles = false;
    parser.on("field", (name, value: string | undefined) => fields.push([name, value]));
    if (withFiles) {
      parser.on("file", (name, stream, info) => {
        const chunks: Buffer[] = [];
        let truncated = false;
        stream.on("data", (c: Buffer) => chunks.push(c));
        stream.on("limit", () => (truncated = true));
        // A body cut off inside a file part errors the part's stream: unhandled, that would end the process.
        stream.on("error", () => reject(new BadRequest("bad_multipart", "Malformed multipart body")));
        stream.on("end", () => {
          // A part may come without a name (`Content-Disposition: form-data; filename=...`).
          files.push({ field: name ?? "", filename: info.filename ?? "file", contentType: info.mimeType || "application/octet-stream", data: Buffer.concat(chunks), truncated });
        });
      });
    }
    parser.on("filesLimit", () => (tooManyFiles = true));
    // Fields past the limit would be dropped without a word: the whole form is refused instead.
    parser.on("fieldsLimit", () => reject(new BadRequest("bad_multipart", `The form has more than ${limits.maxFields} text fields`)));
    parser.on("partsLimit", () => reject(new BadRequest("bad_multipart", `The form has more than ${limits.maxFiles + limits.maxFields} parts`)));
    parser.on("error", () => reject(new BadRequest("bad_multipart", "Malformed multipart body")));
    parser.on("close", () => resolve({ fields, files, tooManyFiles }));
    parser.end(raw ?? Buffer.alloc(0));
  });
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Every text field and file of a multipart/form-data body; a file over `maxFileBytes` is marked
 * truncated. A text field that is not valid UTF-8 (or not valid in the charset its part names, or
 * in a charset no decoder knows) is a 400 `bad_encoding`, as in a JSON body.
 */
export async function readForm(raw: Buffer | undefined, contentType: string, limits: Limits): Promise<Form> {
  const parsed = await parse(raw, contentType, limits, RAW, true);
  let values = parsed.fields.map(([, v]) => v);
  if (!values.every((v) => v !== undefined && ASCII.test(v))) {
    // Some text is not ASCII: which parts named their charset (decoded by it already)?
    const named = (await parse(raw, contentType, limits, NO_CHARSET, false)).fields.map(([, v]) => v !== undefined);
    // A part that named its charset comes decoded; a decoder puts U+FFFD where bytes were invalid in it.
    values = values.map((v, i) => (v === undefined ? v : named[i] ? (v.includes("\uFFFD") ? undefined : v) : utf8(Buffer.from(v, RAW))));
  }
  const fields: Record<string, string | string[]> = {};
  parsed.fields.forEach(([name], i) => {
    const value = values[i];
    if (value === undefined || !wellFormed(value)) throw badEncoding(`The form field ${name}`);
    const prev = fields[name];
    fields[name] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  });
  return { fields, files: parsed.files, tooManyFiles: parsed.tooManyFiles };
}

/** Files a form body may carry. */
export const MAX_FORM_FILES = 10;
/** Text fields a form body may carry (more is a 400, never a silent cut). */
export const MAX_FORM_FIELDS = 1000;

/** A multipart body as the JSON body it stands for, and its files. */
export interface FormBody {
  readonly body: Record<string, unknown>;
  readonly files: readonly FormFile[];
}

/**
 * A multipart body as the JSON one it stands for, its text fields read as Rails reads them
 * (`attachment_ids[]` a list, `content_attributes[key]` a map, others strings; the schemas cast
 * digits and booleans as Rails does); at most MAX_FORM_FILES files.
 */
export async function formBody(raw: Buffer | undefined, contentType: string, maxBytes: number): Promise<FormBody> {
  const form = await readForm(raw, contentType, { maxFileBytes: maxBytes, maxFiles: MAX_FORM_FILES, maxFields: MAX_FORM_FIELDS });
  if (form.tooManyFiles) throw ValidationError.field("attachments", "too_many", `has more than ${MAX_FORM_FILES} files`);
  const pairs = Object.entries(form.fields).flatMap(([name, value]) => [value].flat().map((v) => [name, v] as const));
  return { body: railsParams(pairs), files: form.files };
}
