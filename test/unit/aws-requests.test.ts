/**
 * shared/db/s3.ts and shared/mail/ses-mailer.ts sign their requests with the SDK's signer but
 * build them themselves: here each is held to what the SDK client (`@aws-sdk/client-s3` and
 * `@aws-sdk/client-sesv2`, devDependencies kept for this) sends or presigns for the same input,
 * with the same credentials and clock. A difference in host, path escaping, query, body, signed
 * headers or payload hash changes the signature, and this test fails.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { HttpResponse } from "@smithy/core/protocols";
import type { HttpRequest } from "@smithy/types";
import { SendEmailCommand, SESv2Client } from "@aws-sdk/client-sesv2";
import { signedClient } from "../../shared/aws/signed-http.ts";
import { presignedGet, putRequest, s3Client, type S3Target } from "../../shared/db/s3.ts";
import { sendEmailRequest, type SesTarget } from "../../shared/mail/ses-mailer.ts";

const credentials = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", sessionToken: "token/with+chars=" };
const NOW = new Date("2026-11-21T12:34:56Z");
const KEY = "accounts/7/uploads/AbC-_x9/relatório final (v2)!.pdf";
const DISPOSITION = `attachment; filename*=UTF-8''${encodeURIComponent("relatório final (v2)!.pdf")}`;

const targets: [string, S3Target][] = [
  ["AWS us-east-1", { region: "us-east-1", bucket: "conversa-uploads-abc123" }],
  ["AWS sa-east-1", { region: "sa-east-1", bucket: "conversa-uploads-abc123" }],
  ["a bucket with dots (path-style)", { region: "eu-west-1", bucket: "uploads.example.com" }],
  ["a local endpoint (path-style)", { region: "us-east-1", bucket: "conversa-uploads", endpoint: "http://127.0.0.1:4566" }],
];

/** A request handler that records the request and answers 200 with `body`. */
const capture = (handle: (req: HttpRequest) => void, body = "") => ({
  handle: async (req: HttpRequest) => {
    handle(req);
    return { response: new HttpResponse({ statusCode: 200, headers: {}, body: Readable.from([Buffer.from(body)]) }) };
  },
});

const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
/** Headers the SDK adds for itself (user agent, invocation id, retry info), and signs. */
const SDK_ONLY = new Set(["x-amz-user-agent", "user-agent", "amz-sdk-invocation-id", "amz-sdk-request", "authorization"]);
const signedList = (auth: string) => /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(";");

/**
 * Our signed request against the SDK's: same URL, same headers and values (less the SDK's own),
 * signed over the same headers, and the same signature as the SDK's request re-signed without them.
 */
async function expectSameRequest(ours: HttpRequest, sdk: HttpRequest, resign: (r: HttpRequest) => Promise<HttpRequest>): Promise<void> {
  expect({ method: ours.method, protocol: ours.protocol, hostname: ours.hostname, port: ours.port, path: ours.path, query: ours.query }).toEqual({
    method: sdk.method,
    protocol: sdk.protocol,
    hostname: sdk.hostname,
    port: sdk.port,
    path: sdk.path,
    query: sdk.query,
  });
  expect(Buffer.from(ours.body as string | Uint8Array).toString("latin1")).toBe(Buffer.from(sdk.body as string | Uint8Array).toString("latin1"));
  const sdkHeaders = Object.fromEntries(Object.entries(lower(sdk.headers)).filter(([k]) => !SDK_ONLY.has(k)));
  const { authorization, ...ourRest } = lower(ours.headers);
  expect(ourRest).toEqual(sdkHeaders);
  expect(ourRest["x-amz-content-sha256"]).toMatch(/^[0-9a-f]{64}$/);
  expect(ourRest["x-amz-security-token"]).toBe(credentials.sessionToken);
  expect(signedList(authorization!)).toEqual(signedList(lower(sdk.headers)["authorization"]!).filter((h) => !SDK_ONLY.has(h)));
  const stripped = { ...sdk, headers: Object.fromEntries(Object.entries(sdk.headers).filter(([k]) => !SDK_ONLY.has(k.toLowerCase()))) } as HttpRequest;
  expect(authorization).toBe(lower((await resign(stripped)).headers)["authorization"]);
}

function sdkClient(t: S3Target, handle?: (req: HttpRequest) => void): S3Client {
  return new S3Client({
    region: t.region,
    credentials,
    // No flexible checksums: a CRC of the upload adds nothing to the payload's SHA-256 that
    // S3 checks anyway, and a download URL opened by a browser cannot use checksum mode.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(t.endpoint ? { endpoint: t.endpoint, forcePathStyle: true } : {}),
    ...(handle ? { requestHandler: capture(handle) } : {}),
  });
}

afterEach(() => {
  vi.useRealTimers();
});

describe.each(targets)("S3 requests against the SDK client: %s", (_name, target) => {
  it("presigns GetObject exactly as @aws-sdk/s3-request-presigner does", async () => {
    const sdk = await getSignedUrl(sdkClient(target), new GetObjectCommand({ Bucket: target.bucket, Key: KEY, ResponseContentDisposition: DISPOSITION }), {
      expiresIn: 900,
      signingDate: NOW,
    });
    const ours = await presignedGet(s3Client(target, credentials), KEY, DISPOSITION, 900, NOW);
    expect(ours).toBe(sdk);
    const url = new URL(ours);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("900");
    expect(url.searchParams.get("response-content-disposition")).toBe(DISPOSITION);
  });

  it("sends PutObject as the SDK client does: same URL, headers, payload hash and signature", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const data = Buffer.from("%PDF-1.4 hello");
    let sent: HttpRequest | undefined;
    await sdkClient(target, (r) => (sent = r)).send(
      new PutObjectCommand({ Bucket: target.bucket, Key: KEY, Body: data, ContentType: "application/pdf", ContentDisposition: DISPOSITION }),
    );
    const c = s3Client(target, credentials);
    const ours = (await c.signer.sign(putRequest(target, KEY, data, "application/pdf", DISPOSITION), { signingDate: NOW })) as HttpRequest;
    expect(sent).toBeDefined();
    await expectSameRequest(ours, sent!, async (r) => (await c.signer.sign(r, { signingDate: NOW })) as HttpRequest);
  });
});

describe.each<[string, SesTarget]>([
  ["AWS sa-east-1", { region: "sa-east-1" }],
  ["a local endpoint", { region: "us-east-1", endpoint: "http://127.0.0.1:8005" }],
])("SES v2 SendEmail against the SDK client: %s", (_name, target) => {
  it("sends the same request, body and signature", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: NOW });
    const message = { to: "ana@example.com", subject: "Redefinição de senha", text: "Olá\r\n\r\nhttps://app.test/x?reset_password_token=abc\r\n" };
    let sent: HttpRequest | undefined;
    const sdk = new SESv2Client({ region: target.region, credentials, ...(target.endpoint ? { endpoint: target.endpoint } : {}), requestHandler: capture((r) => (sent = r), "{}") });
    await sdk.send(
      new SendEmailCommand({
        FromEmailAddress: "accounts@conversa.test",
        Destination: { ToAddresses: [message.to] },
        Content: { Simple: { Subject: { Data: message.subject, Charset: "UTF-8" }, Body: { Text: { Data: message.text, Charset: "UTF-8" } } } },
      }),
    );
    const c = signedClient("ses", target.region, credentials);
    const ours = (await c.signer.sign(sendEmailRequest(target, "accounts@conversa.test", message), { signingDate: NOW })) as HttpRequest;
    expect(sent).toBeDefined();
    await expectSameRequest(ours, sent!, async (r) => (await c.signer.sign(r, { signingDate: NOW })) as HttpRequest);
  });
});
