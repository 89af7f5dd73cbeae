/**
 * Lambda Invoke (RequestResponse) as one signed HTTP request (shared/aws/signed-http.ts): the
 * `$default` router's only AWS call, not worth a whole Lambda client in its bundle.
 */
import { HttpRequest } from "@smithy/core/transport";
import { perConfig } from "../config.ts";
import { sendSigned, signedClient, type Credentials, type SignedClient } from "./signed-http.ts";

export interface LambdaTarget {
  readonly region: string;
  /** A local Invoke endpoint (tests). Unset: AWS. */
  readonly endpoint?: string;
}

export interface LambdaClient extends SignedClient {
  readonly target: LambdaTarget;
}

export function lambdaClient(target: LambdaTarget, credentials?: Credentials): LambdaClient {
  // A routed request may run up to its function's timeout: no 3-s request cap, no retries of a slow call.
  return { target, ...signedClient("lambda", target.region, credentials, { connectMs: 1000, requestMs: 30_000, retryWindowMs: 0 }) };
}

const lambda = perConfig(
  (c) => lambdaClient({ region: c.AWS_REGION, ...(c.LAMBDA_ENDPOINT ? { endpoint: c.LAMBDA_ENDPOINT } : {}) }),
  (old) => old.http.destroy(),
);

/** The Invoke request, before signing. */
export function invokeRequest(target: LambdaTarget, functionName: string, payload: string): HttpRequest {
  const base = new URL(target.endpoint ?? `https://lambda.${target.region}.amazonaws.com`);
  const port = base.port ? Number(base.port) : undefined;
  return new HttpRequest({
    method: "POST",
    protocol: base.protocol,
    hostname: base.hostname,
    ...(port ? { port } : {}),
    path: `/2015-03-31/functions/${encodeURIComponent(functionName)}/invocations`,
    headers: { host: base.host, "content-type": "application/json", "x-amz-invocation-type": "RequestResponse" },
    body: payload,
  });
}

const errorType = (text: string, headers: Record<string, string>) => headers["x-amzn-errortype"] ?? /"(?:Type|__type)"\s*:\s*"([^"]+)"/.exec(text)?.[1];

/** Invokes a function synchronously with a JSON payload; returns what it returned (JSON text). */
export async function invokeFunction(functionName: string, payload: unknown, client: LambdaClient = lambda()): Promise<string> {
  const body = JSON.stringify(payload);
  return sendSigned(client, "Lambda Invoke", () => invokeRequest(client.target, functionName, body), errorType);
}
