/**
 * One DynamoDB client per container (created once, reused by every invocation), endpoint from config.
 * The Document client marshals plain objects; numbers stay numbers.
 */
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "../config.ts";

let doc: DynamoDBDocumentClient | undefined;

export function db(): DynamoDBDocumentClient {
  if (doc) return doc;
  const c = config();
  const client = new DynamoDBClient({
    region: c.AWS_REGION,
    ...(c.DYNAMODB_ENDPOINT ? { endpoint: c.DYNAMODB_ENDPOINT } : {}),
    maxAttempts: 3,
  });
  doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return doc;
}

export const mainTableName = (): string => config().TABLE_NAME;
export const throttleTableName = (): string => config().THROTTLE_TABLE_NAME;

/** Tests and the sandbox switch endpoints/tables, then call this. */
export function resetDb(): void {
  doc?.destroy();
  doc = undefined;
}

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
