/**
 * Calibration: conditional PutItems/s this DynamoDB Local sustains right now (50 in flight, on a
 * table shaped like the main one, stream on). A delivery costs two writes (the fan-out's claim
 * and the attempt's record) plus reads, so deliveries/s is read against this ceiling.
 */
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { ensureTable, localClient } from "../../../infra/local/dynamo.ts";
import type { Sandbox } from "../../../infra/local/sandbox.ts";
import { db } from "../../../shared/db/client.ts";
import { mainTable } from "../../../shared/db/table.ts";

export async function putCeiling(sandbox: Sandbox): Promise<number> {
  const client = localClient(sandbox.dynamoEndpoint);
  await ensureTable(client, "bench-calibration", mainTable);
  client.destroy();
  const total = 1000;
  let next = 0;
  const t = performance.now();
  await Promise.all(
    Array.from({ length: 50 }, async () => {
      while (next < total) {
        const i = next++;
        await db().send(
          new PutCommand({ TableName: "bench-calibration", Item: { pk: `CAL#${Date.now()}#${i}`, sk: "CAL", payload: "x".repeat(600) }, ConditionExpression: "attribute_not_exists(pk)" }),
        );
      }
    }),
  );
  return Math.round(total / ((performance.now() - t) / 1000));
}
