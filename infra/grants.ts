/**
 * DynamoDB permissions without wildcards: the actions a function needs on a table and, when it
 * reads, on each of the table's GSIs by name (CDK's `grantReadData` grants `<table>/index/*`,
 * which cdk-nag's AwsSolutions-IAM5 flags, and every index when one is enough).
 */
import { PolicyStatement } from "aws-cdk-lib/aws-iam";
import type { IGrantable } from "aws-cdk-lib/aws-iam";
import type { Table } from "aws-cdk-lib/aws-dynamodb";
import type { TableDef } from "../shared/db/table.ts";
import { DELIVER_FN, FANOUT_FN } from "./webhooks.ts";

/** What every route reads with (single reads, batches, queries on the table and its GSIs, transactions' condition checks). */
export const MAIN_TABLE_READ = [
  "dynamodb:GetItem",
  "dynamodb:BatchGetItem",
  "dynamodb:Query",
  "dynamodb:ConditionCheckItem",
  "dynamodb:DescribeTable",
] as const;

/** Writes (TransactWriteItems needs the per-item actions it performs). */
export const MAIN_TABLE_WRITE = ["dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"] as const;


/**
 * The queue workers (on the table only, no GSI), by what their repositories call (shared/db/webhooks-repo.ts):
 * fan-out reads the event's marker and the account's webhooks, then writes the marker;
 * delivery reads the delivery and its webhook in one batch, then writes the attempt.
 */
export const WORKER_TABLE_ACTIONS: Readonly<Record<string, readonly string[]>> = {
  [FANOUT_FN]: ["dynamodb:GetItem", "dynamodb:Query", "dynamodb:PutItem"],
  // UpdateItem: health transitions (and, in a transaction with the outbox Put, disabling).
  [DELIVER_FN]: ["dynamodb:BatchGetItem", "dynamodb:PutItem", "dynamodb:UpdateItem"],
};

/** What the rate limiter's counters need on the throttle table: atomic ADDs (shared/db/throttle-store.ts). */
export const THROTTLE_COUNTER_ACTIONS = ["dynamodb:UpdateItem"] as const;

const INDEX_ACTIONS = new Set(["dynamodb:Query", "dynamodb:Scan"]);

/** `actions` on the table; query actions on each named GSI as well, unless `indexes` is false. */
export function grantTableData(grantee: IGrantable, table: Table, def: TableDef, actions: readonly string[], indexes = true): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new PolicyStatement({ actions: [...actions], resources: [table.tableArn] }));
  const indexActions = indexes ? actions.filter((a) => INDEX_ACTIONS.has(a)) : [];
  if (indexActions.length && def.gsis.length) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: indexActions, resources: def.gsis.map((g) => `${table.tableArn}/index/${g.name}`) }),
    );
  }
}
