/** Reads the outbox items of an account (the contract with the webhook pipeline), oldest first. */
import { scanAll } from "../../shared/db/query.ts";

export interface OutboxRow {
  readonly event: string;
  readonly inboxId: number | undefined;
  readonly payload: any;
  readonly occurredAt: number;
}

export async function outboxOf(accountId: number, event?: string): Promise<OutboxRow[]> {
  const items = await scanAll({ FilterExpression: "entity = :e AND accountId = :a", ExpressionAttributeValues: { ":e": "outbox", ":a": accountId } });
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
