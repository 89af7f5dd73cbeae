import { api } from "../shared/http/api.ts";
import { reportsRepo } from "../shared/db/reports-repo.ts";
import { report } from "../shared/domain/reports.ts";
import { reportsQuery, reportsReply } from "../shared/http/schemas/widget-reports.ts";

export const handler = api("reports.show", { query: reportsQuery, response: reportsReply }, async (ctx) => ({
  body: await report(reportsRepo, ctx.accountId, ctx.query, ctx.now),
}));
