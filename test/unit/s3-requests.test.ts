/**
 * shared/db/s3.ts signs its two S3 requests with the SDK's signer but builds them itself: here
 * each is held to what `@aws-sdk/client-s3` (a devDependency, kept for this) sends or presigns
 * for the same input, with the same credentials and clock. A difference in host, path escaping,
 * query, signed headers or payload hash changes the signature, and this test fails.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { Readable } from "node:stream";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { HttpResponse } from "@smithy/core/protocols";
import type { HttpRequest } from "@smithy/types";
import { presignedGet, s3Client, signedPut, type S3Target } from "../../shared/db/s3.ts";

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

function sdkClient(t: S3Target, handle?: (req: HttpRequest) => void): S3Client {
  return new S3Client({
    region: t.region,
    credentials,
    // No flexible checksums: a CRC of the upload adds nothing to the payload's SHA-256 that
    // S3 checks anyway, and a download URL opened by a browser cannot use checksum mode.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    ...(t.endpoint ? { endpoint: t.endpoint, forcePathStyle: true } : {}),
    ...(handle
      ? {
          requestHandler: {
            handle: async (req: HttpRequest) => {
              handle(req);
              return { response: new HttpResponse({ statusCode: 200, headers: {}, body: Readable.from([]) }) };
            },
          },
        }
      : {}),
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
    const ours = await signedPut(s3Client(target, credentials), KEY, data, "application/pdf", DISPOSITION, NOW);
    expect(sent).toBeDefined();
    const sdk = sent!;
    expect({ method: ours.method, protocol: ours.protocol, hostname: ours.hostname, port: ours.port, path: ours.path, query: ours.query }).toEqual({
      method: sdk.method,
      protocol: sdk.protocol,
      hostname: sdk.hostname,
      port: sdk.port,
      path: sdk.path,
      query: sdk.query,
    });
    // The SDK adds its own bookkeeping headers (user agent, invocation id, retry info) and signs
    // them; everything else must be the same, with the same values.
    const sdkOnly = new Set(["x-amz-user-agent", "user-agent", "amz-sdk-invocation-id", "amz-sdk-request", "authorization"]);
    const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
    const sdkHeaders = Object.fromEntries(Object.entries(lower(sdk.headers)).filter(([k]) => !sdkOnly.has(k)));
    const ourHeaders = lower(ours.headers);
    const { authorization, ...ourRest } = ourHeaders;
    expect(ourRest).toEqual(sdkHeaders);
    expect(ourRest["x-amz-content-sha256"]).toMatch(/^[0-9a-f]{64}$/);
    expect(ourRest["x-amz-security-token"]).toBe(credentials.sessionToken);
    // Signed over the same headers (less the SDK's bookkeeping), and the same signature once the
    // SDK's request is re-signed without them.
    const signedList = (auth: string) => /SignedHeaders=([^,]+)/.exec(auth)![1]!.split(";");
    expect(signedList(authorization!)).toEqual(signedList(lower(sdk.headers)["authorization"]!).filter((h) => !sdkOnly.has(h)));
    const stripped = { ...sdk, headers: Object.fromEntries(Object.entries(sdk.headers).filter(([k]) => !sdkOnly.has(k.toLowerCase()))) } as HttpRequest;
    const resigned = await s3Client(target, credentials).signer.sign(stripped, { signingDate: NOW });
    expect(authorization).toBe(lower(resigned.headers)["authorization"]);
  });
});
