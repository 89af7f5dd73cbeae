import { api } from "../shared/http/api.ts";
import { credentialsRepo } from "../shared/db/credentials-repo.ts";
import { revokeAccessToken } from "../shared/domain/access-tokens.ts";
import { accessTokenRevokedReply } from "../shared/http/schemas/auth.ts";

export const handler = api("access_tokens.revoke", { response: accessTokenRevokedReply }, async (ctx) => {
  await revokeAccessToken(credentialsRepo, ctx.identity.userId, ctx.params["token_id"]);
  return { status: 200 };
});
