import { api } from "../shared/http/api.ts";
import { config } from "../shared/config.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { requestPasswordReset } from "../shared/domain/password-reset.ts";
import { passwordRequestBody } from "../shared/http/schemas/auth.ts";
import { mailer } from "../shared/mail/mailer.ts";

export const handler = api("auth.password_request", { body: passwordRequestBody }, async (ctx) => ({
  body: await requestPasswordReset(
    { store: credentialsRepo, mailer: mailer(), resetUrl: config().PASSWORD_RESET_URL },
    ctx.body.email,
    ctx.now,
  ),
}));
