import type { ReportField, ReportStore } from "../domain/reports.ts";
import { REPORT_FIELDS } from "../domain/reports.ts";
import { inboxesRepo } from "./inboxes-repo.ts";
import { keys, REPORT_SHARDS } from "./keys.ts";
import { queryAll } from "./query.ts";

export const reportsRepo: ReportStore = {
  async readDays(accountId, scope, fromDay, toDay) {
    // A day's counters are spread over REPORT_SHARDS partitions: read them all (in parallel) and add up.
    const shards = await Promise.all(
      Array.from({ length: REPORT_SHARDS }, (_, shard) =>
        queryAll({
          KeyConditionExpression: "pk = :pk AND sk BETWEEN :lo AND :hi",
          ExpressionAttributeValues: { ":pk": keys.reportPartition(accountId, scope, shard).pk, ":lo": `DAY#${fromDay}`, ":hi": `DAY#${toDay}` },
        }),
      ),
    );
    const days = new Map<string, Record<ReportField, number>>();
    for (const i of shards.flat()) {
      const day = String(i["sk"]).slice(4);
      const fields = days.get(day) ?? (Object.fromEntries(REPORT_FIELDS.map((f) => [f, 0])) as Record<ReportField, number>);
      for (const f of REPORT_FIELDS) fields[f] += Number(i[f] ?? 0);
      days.set(day, fields);
    }
    return [...days].map(([day, fields]) => ({ day, fields }));
  },
  async inboxExists(accountId, inboxId) {
    return (await inboxesRepo.getInbox(accountId, inboxId)) !== undefined;
  },
};
