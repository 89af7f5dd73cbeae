/**
 * What a file is, from its first bytes (magic numbers) rather than from the name or the
 * Content-Type a client declared: the common image, audio, video and document signatures.
 * Plain text (text/plain, text/csv, JSON) has none: it is taken as declared when it decodes
 * as UTF-8 without NUL bytes.
 */
export interface Sniffed {
  readonly contentType: string;
  readonly extension: string;
}

const ascii = (b: Buffer, at: number, s: string) => b.length >= at + s.length && b.toString("latin1", at, at + s.length) === s;
const bytes = (b: Buffer, at: number, sig: readonly number[]) => b.length >= at + sig.length && sig.every((v, i) => b[at + i] === v);

/** MP4-family brands (ISO base media `ftyp` box) → type. */
function isoBmff(b: Buffer): Sniffed | undefined {
  if (!ascii(b, 4, "ftyp")) return undefined;
  const brand = b.toString("latin1", 8, 12);
  if (/^(heic|heix|heim|heis|mif1|msf1)$/.test(brand)) return { contentType: "image/heic", extension: "heic" };
  if (/^avif$/.test(brand)) return { contentType: "image/avif", extension: "avif" };
  if (/^M4A |^M4B /.test(brand)) return { contentType: "audio/mp4", extension: "m4a" };
  if (/^qt {2}$/.test(brand)) return { contentType: "video/quicktime", extension: "mov" };
  if (/^3gp/.test(brand)) return { contentType: "video/3gpp", extension: "3gp" };
  return { contentType: "video/mp4", extension: "mp4" };
}

const SIGNATURES: readonly ((b: Buffer) => Sniffed | undefined)[] = [
  (b) => (bytes(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]) ? { contentType: "image/png", extension: "png" } : undefined),
  (b) => (bytes(b, 0, [0xff, 0xd8, 0xff]) ? { contentType: "image/jpeg", extension: "jpg" } : undefined),
  (b) => (ascii(b, 0, "GIF87a") || ascii(b, 0, "GIF89a") ? { contentType: "image/gif", extension: "gif" } : undefined),
  (b) => (ascii(b, 0, "RIFF") && ascii(b, 8, "WEBP") ? { contentType: "image/webp", extension: "webp" } : undefined),
  (b) => (ascii(b, 0, "BM") && b.length > 14 ? { contentType: "image/bmp", extension: "bmp" } : undefined),
  (b) => (bytes(b, 0, [0x49, 0x49, 0x2a, 0x00]) || bytes(b, 0, [0x4d, 0x4d, 0x00, 0x2a]) ? { contentType: "image/tiff", extension: "tiff" } : undefined),
  (b) => (ascii(b, 0, "%PDF-") ? { contentType: "application/pdf", extension: "pdf" } : undefined),
  (b) => (ascii(b, 0, "RIFF") && ascii(b, 8, "WAVE") ? { contentType: "audio/wav", extension: "wav" } : undefined),
  (b) => (ascii(b, 0, "RIFF") && ascii(b, 8, "AVI ") ? { contentType: "video/x-msvideo", extension: "avi" } : undefined),
  (b) => (ascii(b, 0, "OggS") ? { contentType: "audio/ogg", extension: "ogg" } : undefined),
  (b) => (ascii(b, 0, "fLaC") ? { contentType: "audio/flac", extension: "flac" } : undefined),
  (b) => (ascii(b, 0, "ID3") || (b.length > 2 && b[0] === 0xff && (b[1]! & 0xe0) === 0xe0 && (b[1]! & 0x06) !== 0) ? { contentType: "audio/mpeg", extension: "mp3" } : undefined),
  (b) => (ascii(b, 0, "#!AMR") ? { contentType: "audio/amr", extension: "amr" } : undefined),
  (b) => (bytes(b, 0, [0x1a, 0x45, 0xdf, 0xa3]) ? { contentType: "video/webm", extension: "webm" } : undefined),
  isoBmff,
  (b) => (bytes(b, 0, [0x50, 0x4b, 0x03, 0x04]) ? { contentType: "application/zip", extension: "zip" } : undefined),
];

/** Office documents are zip files: their declared type is kept when the bytes are a zip. */
const ZIP_BASED = /^application\/(zip|vnd\.openxmlformats-officedocument\.[a-z.]+|vnd\.oasis\.opendocument\.[a-z.]+)$/;
const TEXT_TYPES: Readonly<Record<string, string>> = { "text/plain": "txt", "text/csv": "csv", "application/json": "json" };

const isText = (b: Buffer) => !b.includes(0) && Buffer.from(b.toString("utf8"), "utf8").equals(b);

/**
 * The file's type from its content; `declared` only decides between a zip and the office format
 * it carries, and which text type a text file is. Undefined: content of no known kind.
 */
export function sniff(data: Buffer, declared: string): Sniffed | undefined {
  const type = declared.toLowerCase().split(";")[0]!.trim();
  for (const check of SIGNATURES) {
    const found = check(data);
    if (!found) continue;
    if (found.contentType === "application/zip" && ZIP_BASED.test(type)) return { contentType: type, extension: type.includes("wordprocessingml") ? "docx" : type.includes("spreadsheetml") ? "xlsx" : type.includes("presentationml") ? "pptx" : "zip" };
    return found;
  }
  if (isText(data)) return { contentType: TEXT_TYPES[type] ? type : "text/plain", extension: TEXT_TYPES[type] ?? "txt" };
  return undefined;
}

/** Chatwoot's file_type of a content type. */
export function fileTypeOf(contentType: string): "image" | "audio" | "video" | "file" {
  const major = contentType.split("/")[0];
  return major === "image" || major === "audio" || major === "video" ? major : "file";
}
