/** Records the DynamoDB calls a piece of test code makes through the shared client (db()). */
import { db } from "../../shared/db/client.ts";

export interface RecordedCall {
  readonly command: string;
  readonly input: Record<string, any>;
}

export async function recordCalls(fn: () => Promise<unknown>): Promise<RecordedCall[]> {
  const calls: RecordedCall[] = [];
  const name = `record-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      calls.push({ command: (context as { commandName?: string }).commandName ?? "?", input: args.input as Record<string, any> });
      return next(args);
    },
    { step: "initialize", name },
  );
  try {
    await fn();
  } finally {
    db().middlewareStack.remove(name);
  }
  return calls;
}
