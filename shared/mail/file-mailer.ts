/**
 * The sandbox's mailer: each message becomes one RFC 5322 `.eml` file in a directory
 * (`MAIL_DIR`, `.data/mail` under `npm start`), written atomically (temp file, then rename).
 */
import { randomBytes } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Mailer, MailMessage } from "../domain/mail.ts";

/** No header injection: a header value is one line. */
const oneLine = (s: string): string => s.replace(/[\r\n]+/g, " ").trim();

/** RFC 2047 encoded word when the value is not plain ASCII. */
const headerText = (s: string): string =>
  /^[\x20-\x7e]*$/.test(s) ? s : `=?UTF-8?B?${Buffer.from(s, "utf8").toString("base64")}?=`;

export function toEml(from: string, message: MailMessage, date: Date, id: string): string {
  const domain = from.split("@")[1] ?? "localhost";
  return [
    `From: ${oneLine(from)}`,
    `To: ${oneLine(message.to)}`,
    `Subject: ${headerText(oneLine(message.subject))}`,
    `Date: ${date.toUTCString()}`,
    `Message-ID: <${id}@${oneLine(domain)}>`,
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "Content-Transfer-Encoding: 8bit",
    "",
    message.text.replace(/\r?\n/g, "\r\n"),
  ].join("\r\n");
}

export function fileMailer(dir: string, from: string, clock: () => Date = () => new Date()): Mailer {
  return {
    async send(message) {
      const date = clock();
      const id = `${date.getTime()}-${randomBytes(6).toString("hex")}`;
      await mkdir(dir, { recursive: true });
      const file = join(dir, `${id}.eml`);
      await writeFile(`${file}.tmp`, toEml(from, message, date, id), { mode: 0o600 });
      await rename(`${file}.tmp`, file);
    },
  };
}
