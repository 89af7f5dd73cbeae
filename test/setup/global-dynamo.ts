/** One DynamoDB Local per test run (in memory, free port); each file makes its own tables. */
import type { TestProject } from "vitest/node";
import { startDynamoLocal, type DynamoLocal } from "../../infra/local/dynamo.ts";

let dynamo: DynamoLocal | undefined;

export async function setup(project: TestProject): Promise<void> {
  dynamo = await startDynamoLocal();
  project.provide("dynamoEndpoint", dynamo.endpoint);
}

export async function teardown(): Promise<void> {
  await dynamo?.stop();
}

declare module "vitest" {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}
