import { api } from "../shared/http/api.ts";
import { accountsRepo } from "../shared/db/accounts-repo.ts";
import { showAccount } from "../shared/domain/accounts.ts";
import { accountReply } from "../shared/http/schemas/inboxes.ts";

export const handler = api("accounts.show", { response: accountReply }, async (ctx) => ({
  body: await showAccount(accountsRepo, ctx.accountId),
}));
