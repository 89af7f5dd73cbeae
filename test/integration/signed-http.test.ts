/**
 * shared/aws/signed-http.ts against a real HTTP server on 127.0.0.1: what is retried (5xx) and
 * what is not (4xx), that every attempt is signed afresh, the service's error code in the thrown
 * error, and that a hung endpoint fails within the call's time budget instead of hanging.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpRequest } from "@smithy/core/transport";
import { AwsCallError, sendSigned, signedClient } from "../../shared/aws/signed-http.ts";

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "secret" };
const xmlCode = (text: string) => /<Code>([^<]+)<\/Code>/.exec(text)?.[1];

let server: Server;
let port = 0;
const seen: { path: string; auth: string; date: string }[] = [];
let answer: (req: IncomingMessage, res: ServerResponse, n: number) => void = (_q, res) => res.end();

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      seen.push({ path: req.url ?? "", auth: String(req.headers["authorization"] ?? ""), date: String(req.headers["x-amz-date"] ?? "") });
      answer(req, res, seen.length);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  const a = server.address();
  port = typeof a === "object" && a ? a.port : 0;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const put = () =>
  new HttpRequest({ method: "PUT", protocol: "http:", hostname: "127.0.0.1", port, path: "/bucket/key", headers: { host: `127.0.0.1:${port}`, "content-type": "text/plain" }, query: {}, body: Buffer.from("hello") });

describe("signed requests", () => {
  it("retries a 5xx and succeeds, signing each attempt", async () => {
    seen.length = 0;
    answer = (_req, res, n) => {
      if (n === 1) {
        res.writeHead(503).end("<Error><Code>SlowDown</Code></Error>");
      } else {
        res.writeHead(200).end("ok");
      }
    };
    await expect(sendSigned(signedClient("s3", "us-east-1", credentials), "S3 PutObject", put, xmlCode)).resolves.toBe("ok");
    expect(seen).toHaveLength(2);
    expect(seen.every((s) => s.path === "/bucket/key" && /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/us-east-1\/s3\/aws4_request/.test(s.auth) && s.date !== "")).toBe(true);
  });

  it("does not retry a 4xx, and names the service's error code", async () => {
    seen.length = 0;
    answer = (_req, res) => res.writeHead(403).end("<Error><Code>AccessDenied</Code><Message>no</Message></Error>");
    const err = await sendSigned(signedClient("s3", "us-east-1", credentials), "S3 PutObject", put, xmlCode).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AwsCallError);
    expect(err).toMatchObject({ status: 403, code: "AccessDenied", message: "S3 PutObject failed: 403 AccessDenied" });
    expect(seen).toHaveLength(1);
  });

  it("gives up on an endpoint that never answers within its time budget", async () => {
    seen.length = 0;
    answer = () => undefined; // never responds
    const t0 = performance.now();
    const err = await sendSigned(signedClient("s3", "us-east-1", credentials, { connectMs: 200, requestMs: 300, retryWindowMs: 500 }), "S3 PutObject", put, xmlCode).catch((e: unknown) => e);
    const ms = performance.now() - t0;
    expect(err).toBeInstanceOf(AwsCallError);
    expect((err as AwsCallError).status).toBeUndefined();
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.length).toBeLessThanOrEqual(3);
    expect(ms).toBeLessThan(2000);
  });
});
