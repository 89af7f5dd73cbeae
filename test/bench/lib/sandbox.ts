/**
 * Starting and stopping what a benchmark runs against: the whole sandbox (through its public
 * `startSandbox`) or DynamoDB Local alone. Stopped on the way out, whatever happened.
 */
import "./env.ts";
import { startDynamoLocal, type DynamoLocal } from "../../../infra/local/dynamo.ts";
import { startSandbox, type Sandbox, type SandboxOptions } from "../../../infra/local/sandbox.ts";

/** The sandbox's API base on 127.0.0.1 (no name lookup in the timed path). */
export const loopbackApiBase = (sandbox: Sandbox): string => sandbox.info.apiBase.replace("localhost", "127.0.0.1");

export async function withSandbox<T>(opts: SandboxOptions, fn: (sandbox: Sandbox) => Promise<T>): Promise<T> {
  const sandbox = await startSandbox(opts);
  try {
    return await fn(sandbox);
  } finally {
    await sandbox.stop();
  }
}

export async function withDynamoLocal<T>(fn: (dynamo: DynamoLocal) => Promise<T>): Promise<T> {
  const dynamo = await startDynamoLocal();
  try {
    return await fn(dynamo);
  } finally {
    await dynamo.stop();
  }
}
