import type { ReportField, ReportStore } from "../domain/reports.ts";
import { REPORT_FIELDS } from "../domain/reports.ts";
import { inboxesRepo } from "./inboxes-repo.ts";
import { keys } from "./keys.ts";
import { queryAll } from "./query.ts";

export const reportsRepo: ReportStore = {
  async readDays(accountId, scope, fromDay, toDay) {
    const items = await queryAll({
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
      ExpressionAttributeValues: { ":pk": keys.reportPartition(accountId, scope).pk, ":lo": `DAY#${fromDay}`, ":hi": `DAY#${toDay}` },
    });
    return items.map((i) => ({
      day: String(i["sk"]).slice(4),
      fields: Object.fromEntries(REPORT_FIELDS.map((f) => [f, Number(i[f] ?? 0)])) as Record<ReportField, number>,
    }));
  },
  async inboxExists(accountId, inboxId) {
    return (await inboxesRepo.getInbox(accountId, inboxId)) !== undefined;
  },
};
