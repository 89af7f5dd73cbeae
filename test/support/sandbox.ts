/**
 * The sandbox of one test file, on the suite's DynamoDB Local: a free port and a pair of tables of
 * its own (the label and a random suffix: files run side by side), plus whatever the file sets.
 */
import { inject } from "vitest";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../infra/local/sandbox.ts";

export function startTestSandbox(label: string, opts: Omit<SandboxOptions, "port" | "dynamoEndpoint" | "tableName" | "throttleTableName"> = {}): Promise<Sandbox> {
  const suffix = Math.random().toString(36).slice(2, 8);
  return startSandbox({
    port: 0,
    dynamoEndpoint: inject("dynamoEndpoint"),
    tableName: `${label}-main-${suffix}`,
    throttleTableName: `${label}-throttle-${suffix}`,
    ...opts,
  });
}
