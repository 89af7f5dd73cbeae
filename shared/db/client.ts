/**
 * One DynamoDB client per container, endpoint from config (rebuilt when the
 * configuration in force changes: the sandbox and the tests install their own).
 * The Document client marshals plain objects; numbers stay numbers.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config, perConfig } from "../config.ts";

export const db: () => DynamoDBDocumentClient = perConfig(
  (c) => {
    const client = new DynamoDBClient({
      region: c.AWS_REGION,
      ...(c.DYNAMODB_ENDPOINT ? { endpoint: c.DYNAMODB_ENDPOINT } : {}),
      maxAttempts: 3,
    });
    return DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
    });
  },
  (old) => old.destroy(),
);

export const mainTableName = (): string => config().TABLE_NAME;
export const throttleTableName = (): string => config().THROTTLE_TABLE_NAME;

/** True when a TransactWriteItems failed on a condition (e.g. a uniqueness marker). */
export function cancelledOnCondition(err: unknown): boolean {
  const e = err as { name?: string; CancellationReasons?: { Code?: string }[] };
  return (
    e?.name === "TransactionCanceledException" &&
    (e.CancellationReasons ?? []).some((r) => r?.Code === "ConditionalCheckFailed")
  );
}

/** Index (in the transaction) of the items whose condition failed. */
export function failedConditionIndexes(err: unknown): number[] {
  const e = err as { CancellationReasons?: { Code?: string }[] };
  return (e?.CancellationReasons ?? []).flatMap((r, i) => (r?.Code === "ConditionalCheckFailed" ? [i] : []));
}

export const isConditionalFailure = (err: unknown): boolean =>
  (err as { name?: string })?.name === "ConditionalCheckFailedException";
