/** Reads the outbox items of an account (the contract with the webhook pipeline), oldest first. */
import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { db, mainTableName } from "../../shared/db/client.ts";

export interface OutboxRow {
  readonly event: string;
  readonly inboxId: number | undefined;
  readonly payload: any;
  readonly occurredAt: number;
}

export async function outboxOf(accountId: number, event?: string): Promise<OutboxRow[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new ScanCommand({
        TableName: mainTableName(),
        FilterExpression: "entity = :e AND accountId = :a",
        ExpressionAttributeValues: { ":e": "outbox", ":a": accountId },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    items.push(...(out.Items ?? []));
    start = out.LastEvaluatedKey;
  } while (start);
  return items
    .map((i) => ({
      event: String(i["event"]),
      inboxId: i["inboxId"] === undefined ? undefined : Number(i["inboxId"]),
      payload: JSON.parse(String(i["payload"])),
      occurredAt: Number(i["occurredAt"]),
    }))
    .filter((r) => event === undefined || r.event === event)
    .sort((x, y) => x.occurredAt - y.occurredAt);
}
