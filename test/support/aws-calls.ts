/**
 * Counts the AWS calls a piece of test code makes, per service. The SDK clients (DynamoDB via db()
 * and the throttle counters' own client, SQS via sqs()) are counted by a middleware on their stack (one per command, retries not
 * counted); the services called through signed HTTP requests without a client (S3 uploads, SES,
 * EventBridge) by the request's signing scope, at the SDK's HTTP handler they all share.
 */
import type { HttpRequest } from "@smithy/core/transport";
import { NodeHttpHandler } from "@smithy/node-http-handler";
import type { InitializeMiddleware } from "@smithy/types";
import { db } from "../../shared/db/client.ts";
import { throttleStoreClient } from "../../shared/db/throttle-store.ts";
import { sqs } from "../../shared/queue/sqs.ts";

export interface CallCount {
  dynamodb: number;
  sqs: number;
  s3: number;
  eventbridge: number;
  /** Command names, in order ("dynamodb:GetCommand", "s3:PUT", ...). */
  readonly log: string[];
}

/** The service of a signed request: `Credential=AKID/date/region/SERVICE/aws4_request`. */
function signingService(req: HttpRequest): string | undefined {
  const auth = req.headers["authorization"] ?? req.headers["Authorization"] ?? "";
  return /Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/.exec(auth)?.[1];
}

export async function countCalls(fn: () => Promise<unknown>): Promise<CallCount> {
  const count: CallCount = { dynamodb: 0, sqs: 0, s3: 0, eventbridge: 0, log: [] };
  const name = `count-${Math.random()}`;
  const counter = (service: "dynamodb" | "sqs"): InitializeMiddleware<any, any> => (next, context) => async (args) => {
    count[service]++;
    count.log.push(`${service}:${(context as { commandName?: string }).commandName ?? "?"}`);
    return next(args);
  };
  const dynamo = db();
  const throttle = throttleStoreClient();
  const queue = sqs();
  dynamo.middlewareStack.add(counter("dynamodb"), { step: "initialize", name });
  throttle.middlewareStack.add(counter("dynamodb"), { step: "initialize", name });
  queue.middlewareStack.add(counter("sqs"), { step: "initialize", name });
  const original = NodeHttpHandler.prototype.handle;
  NodeHttpHandler.prototype.handle = function (this: NodeHttpHandler, req: HttpRequest, options?: Parameters<typeof original>[1]) {
    const service = signingService(req);
    if (service === "s3" || service === "events") {
      count[service === "s3" ? "s3" : "eventbridge"]++;
      count.log.push(`${service}:${req.method}`);
    }
    return original.call(this, req, options);
  } as typeof original;
  try {
    await fn();
  } finally {
    NodeHttpHandler.prototype.handle = original;
    dynamo.middlewareStack.remove(name);
    throttle.middlewareStack.remove(name);
    queue.middlewareStack.remove(name);
  }
  return count;
}
