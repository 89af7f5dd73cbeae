import { api } from "../shared/http/api.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { listAccessTokens } from "../shared/domain/access-tokens.ts";
import { accessTokenListReply, listQuery, pageOf, pageRequest } from "../shared/http/schemas/auth.ts";

export const handler = api("access_tokens.list", { query: listQuery, response: accessTokenListReply }, async (ctx) => ({
  body: pageOf(await listAccessTokens(credentialsRepo, ctx.identity.userId, ctx.now), pageRequest(ctx.query)),
}));
