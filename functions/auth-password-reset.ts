import { api } from "../shared/http/api.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { resetPassword } from "../shared/domain/password-reset.ts";
import { messageReply, passwordResetBody } from "../shared/http/schemas/auth.ts";

export const handler = api("auth.password_reset", { body: passwordResetBody, response: messageReply("The password is changed; every earlier reset link stops working") }, async (ctx) => ({
  body: { message: await resetPassword(credentialsRepo, ctx.body, ctx.now) },
}));
