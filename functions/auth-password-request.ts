import { api } from "../shared/http/api.ts";
import { config } from "../shared/config.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { requestPasswordReset } from "../shared/domain/password-reset.ts";
import { messageReply, passwordRequestBody } from "../shared/http/schemas/auth.ts";
import { mailer } from "../shared/mail/mailer.ts";

export const handler = api("auth.password_request", { body: passwordRequestBody, response: messageReply("Always the same message, whether the e-mail is known or not") }, async (ctx) => {
  const c = config();
  const deps = { store: credentialsRepo, mailer: mailer(), resetUrl: c.PASSWORD_RESET_URL, pacing: { minReplyMs: c.PASSWORD_RESET_MIN_REPLY_MS } };
  return { body: { message: await requestPasswordReset(deps, ctx.body.email, ctx.now) } };
});
