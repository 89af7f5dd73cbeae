/**
 * Table definitions shared by the CDK stack, the sandbox and the tests: one source of truth
 * for key names, GSIs and the TTL attribute.
 */

export const TTL_ATTRIBUTE = "expiresAt";

export interface TableDef {
  readonly partitionKey: string;
  readonly sortKey?: string;
  readonly gsis: readonly { readonly name: string; readonly partitionKey: string; readonly sortKey: string }[];
  readonly ttlAttribute: string;
  readonly stream: boolean;
}

/** Main single table: pk/sk strings, two generic GSIs, TTL, stream (the outbox feed). */
export const mainTable: TableDef = {
  partitionKey: "pk",
  sortKey: "sk",
  gsis: [
    { name: "gsi1", partitionKey: "gsi1pk", sortKey: "gsi1sk" },
    { name: "gsi2", partitionKey: "gsi2pk", sortKey: "gsi2sk" },
  ],
  ttlAttribute: TTL_ATTRIBUTE,
  stream: true,
};

/** Throttle table: one counter item per (rule, key, window). */
export const throttleTable: TableDef = {
  partitionKey: "pk",
  gsis: [],
  ttlAttribute: TTL_ATTRIBUTE,
  stream: false,
};

/** CreateTable input for local DynamoDB (sandbox and tests); the stack builds the same from CDK. */
export function createTableInput(name: string, def: TableDef) {
  const attrs = new Set<string>([def.partitionKey, ...(def.sortKey ? [def.sortKey] : [])]);
  for (const g of def.gsis) {
    attrs.add(g.partitionKey);
    attrs.add(g.sortKey);
  }
  return {
    TableName: name,
    BillingMode: "PAY_PER_REQUEST" as const,
    AttributeDefinitions: [...attrs].map((a) => ({ AttributeName: a, AttributeType: "S" as const })),
    KeySchema: [
      { AttributeName: def.partitionKey, KeyType: "HASH" as const },
      ...(def.sortKey ? [{ AttributeName: def.sortKey, KeyType: "RANGE" as const }] : []),
    ],
    ...(def.gsis.length
      ? {
          GlobalSecondaryIndexes: def.gsis.map((g) => ({
            IndexName: g.name,
            KeySchema: [
              { AttributeName: g.partitionKey, KeyType: "HASH" as const },
              { AttributeName: g.sortKey, KeyType: "RANGE" as const },
            ],
            Projection: { ProjectionType: "ALL" as const },
          })),
        }
      : {}),
    ...(def.stream ? { StreamSpecification: { StreamEnabled: true, StreamViewType: "NEW_IMAGE" as const } } : {}),
  };
}
