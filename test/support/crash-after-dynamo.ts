/**
 * Run by test/e2e/dynamo-local.test.ts in a child process: starts DynamoDB Local, prints the
 * Java pid, then dies of an uncaught error without calling stop() (or, with `wait`, waits to be
 * killed).
 */
import { startDynamoLocal } from "../../infra/local/dynamo.ts";

const dynamo = await startDynamoLocal();
process.stdout.write(`${dynamo.pid}\n`);
if (process.argv[2] === "wait") setInterval(() => undefined, 1000);
else throw new Error("crashing on purpose, DynamoDB Local still running");
