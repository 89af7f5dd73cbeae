/** The deployed mailer: Amazon SES v2 `SendEmail` from MAIL_FROM (the stack grants it). */
import { SESv2Client, SendEmailCommand } from "@aws-sdk/client-sesv2";
import type { Mailer } from "../domain/mail.ts";

export function sesMailer(client: SESv2Client, from: string): Mailer {
  return {
    async send(message) {
      await client.send(
        new SendEmailCommand({
          FromEmailAddress: from,
          Destination: { ToAddresses: [message.to] },
          Content: {
            Simple: {
              Subject: { Data: message.subject, Charset: "UTF-8" },
              Body: { Text: { Data: message.text, Charset: "UTF-8" } },
            },
          },
        }),
      );
    },
  };
}
