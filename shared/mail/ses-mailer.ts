/**
 * The deployed mailer: Amazon SES v2 `SendEmail` from MAIL_FROM (the stack grants it), one signed
 * POST (shared/aws/signed-http.ts) rather than `@aws-sdk/client-sesv2`, which would add ~85 KB to
 * the password-recovery function for this one call. test/unit/aws-requests.test.ts holds the
 * request to the SDK client's.
 */
import { HttpRequest } from "@smithy/core/transport";
import { sendSigned, type SignedClient } from "../aws/signed-http.ts";
import type { MailMessage, Mailer } from "../domain/mail.ts";

/** SES v2 endpoint: AWS's regional one, or a local stand-in (tests). */
export interface SesTarget {
  readonly region: string;
  readonly endpoint?: string;
}

export function sendEmailRequest(target: SesTarget, from: string, message: MailMessage): HttpRequest {
  const u = new URL(target.endpoint ?? `https://email.${target.region}.amazonaws.com`);
  const port = u.port ? Number(u.port) : undefined;
  // Field order as the SDK client serializes SendEmail (the test compares bodies byte for byte).
  const body = JSON.stringify({
    Content: {
      Simple: {
        Subject: { Data: message.subject, Charset: "UTF-8" },
        Body: { Text: { Data: message.text, Charset: "UTF-8" } },
      },
    },
    FromEmailAddress: from,
    Destination: { ToAddresses: [message.to] },
  });
  return new HttpRequest({
    method: "POST",
    protocol: u.protocol,
    hostname: u.hostname,
    ...(port ? { port } : {}),
    path: `${u.pathname.replace(/\/$/, "")}/v2/email/outbound-emails`,
    headers: { host: u.host, "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    query: {},
    body,
  });
}

/** SES's error: the type (`x-amzn-errortype`, up to its ':') and the message of the JSON body. */
function sesError(text: string, headers: Record<string, string>): string | undefined {
  const type = (headers["x-amzn-errortype"] ?? "").split(":")[0];
  let message = "";
  try {
    const j = JSON.parse(text) as { message?: unknown; Message?: unknown };
    message = String(j.message ?? j.Message ?? "");
  } catch {
    // not JSON: the type alone
  }
  return [type, message].filter(Boolean).join(": ") || undefined;
}

export function sesMailer(client: SignedClient, target: SesTarget, from: string): Mailer {
  return {
    async send(message) {
      await sendSigned(client, "SES SendEmail", () => sendEmailRequest(target, from, message), sesError);
    },
  };
}
