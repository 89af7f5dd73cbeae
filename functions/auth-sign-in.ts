import { api } from "../shared/http/api.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { signIn } from "../shared/domain/sign-in.ts";
import { signInBody, signInReply } from "../shared/http/schemas/auth.ts";
import { dataReply } from "../shared/http/replies.ts";

export const handler = api("auth.sign_in", { body: signInBody, response: signInReply }, async (ctx) => ({
  body: dataReply(await signIn(credentialsRepo, ctx.body, ctx.now)),
}));
