/** The mailer port: Amazon SES v2 in AWS, `.eml` files in the sandbox (shared/mail/). */

export interface MailMessage {
  readonly to: string;
  readonly subject: string;
  /** Plain text, CRLF line ends. */
  readonly text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}
