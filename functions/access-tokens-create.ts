import { api } from "../shared/http/api.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { createAccessToken } from "../shared/domain/access-tokens.ts";
import { accessTokenCreatedReply, createAccessTokenBody } from "../shared/http/schemas/auth.ts";

export const handler = api("access_tokens.create", { body: createAccessTokenBody, response: accessTokenCreatedReply }, async (ctx) => ({
  body: await createAccessToken(credentialsRepo, ctx.identity.userId, ctx.body.name, ctx.now),
}));
