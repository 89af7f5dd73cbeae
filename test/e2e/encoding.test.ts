/** The sandbox gateway hands malformed encodings to the handlers' layer: 400 bad_encoding, never a 500. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../infra/local/sandbox.ts";
import { startTestSandbox } from "../support/sandbox.ts";

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startTestSandbox("enc");
});

afterAll(async () => {
  await sandbox?.stop();
});

const call = async (path: string, init: RequestInit = {}) => {
  const res = await fetch(`${sandbox.info.apiBase.replace("localhost", "127.0.0.1")}${path}`, {
    ...init,
    headers: { "content-type": "application/json", api_access_token: sandbox.info.adminApiKey },
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, json: await res.json() };
};
const BAD = { error: expect.any(String), code: "bad_encoding" };

describe("sandbox gateway and encodings", () => {
  it("answers 400 bad_encoding for a malformed percent-encoding in the path", async () => {
    expect(await call("/api/v1/accounts/%E0%A4%A")).toEqual({ status: 400, json: BAD });
    expect(await call(`/api/v1/accounts/${sandbox.info.accountId}/contacts/%FF`)).toEqual({ status: 400, json: BAD });
  });

  it("answers 400 bad_encoding for invalid UTF-8 in the query", async () => {
    expect(await call(`/api/v1/accounts/${sandbox.info.accountId}/contacts/search?q=%C3%28`)).toEqual({ status: 400, json: BAD });
  });

  it("answers 400 bad_encoding for invalid UTF-8 in a JSON body", async () => {
    const body = Buffer.concat([Buffer.from('{"name":"x'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);

    expect(await call(`/api/v1/accounts/${sandbox.info.accountId}/contacts`, { method: "POST", body })).toEqual({ status: 400, json: BAD });
  });
});
