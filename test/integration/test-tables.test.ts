import { DescribeTimeToLiveCommand } from "@aws-sdk/client-dynamodb";
import { afterAll, describe, expect, it } from "vitest";
import { config } from "../../shared/config.ts";
import { localClient } from "../../infra/local/dynamo.ts";

/** Guards test/setup/per-file-table.ts: injected clocks must not race DynamoDB Local's TTL sweeper. */
describe("per-file test tables", () => {
  const client = localClient(config().DYNAMODB_ENDPOINT!);
  afterAll(() => client.destroy());

  it("have TTL off, so items dated by an injected clock are not deleted under a test", async () => {
    for (const table of [config().TABLE_NAME, config().THROTTLE_TABLE_NAME]) {
      const out = await client.send(new DescribeTimeToLiveCommand({ TableName: table }));
      expect(out.TimeToLiveDescription?.TimeToLiveStatus).toBe("DISABLED");
    }
  });
});
