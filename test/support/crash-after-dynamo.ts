/**
 * Run by test/e2e/dynamo-local.test.ts in a child process: starts DynamoDB Local, prints the
 * Java pid, then dies of an uncaught error without calling stop().
 */
import { startDynamoLocal } from "../../infra/local/dynamo.ts";

const dynamo = await startDynamoLocal();
process.stdout.write(`${dynamo.pid}\n`);
throw new Error("crashing on purpose, DynamoDB Local still running");
