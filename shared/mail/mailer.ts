/**
 * The mailer this container uses, picked by config: MAIL_DIR set -> `.eml` files (sandbox),
 * otherwise Amazon SES v2 (one signer and connection pool per container, endpoint from SES_ENDPOINT when set).
 * Failures are logged here (no recipient, no body) and rethrown to the use case.
 */
import { signedClient } from "../aws/signed-http.ts";
import { perConfig, type Config } from "../config.ts";
import type { Mailer } from "../domain/mail.ts";
import { log } from "../observability/log.ts";
import { fileMailer } from "./file-mailer.ts";
import { sesMailer } from "./ses-mailer.ts";

/** Rebuilt when the configuration in force changes (the sandbox and the tests install their own). */
const current = perConfig((c: Config): Mailer => {
  if (c.MAIL_DIR) return fileMailer(c.MAIL_DIR, c.MAIL_FROM);
  const target = { region: c.AWS_REGION, ...(c.SES_ENDPOINT ? { endpoint: c.SES_ENDPOINT } : {}) };
  return sesMailer(signedClient("ses", c.AWS_REGION), target, c.MAIL_FROM);
});

export function mailer(): Mailer {
  const inner = current();
  return {
    async send(message) {
      try {
        await inner.send(message);
      } catch (err) {
        const e = err as { name?: string; code?: string };
        log.error("mail not sent", { subject: message.subject, error: e?.name ?? String(err), code: e?.code });
        throw err;
      }
    },
  };
}
