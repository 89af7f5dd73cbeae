import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAws, type LocalAws } from "../../infra/local/fauxqs.ts";
import { resetConfig } from "../../shared/config.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { formBody } from "../../shared/http/multipart.ts";

let aws: LocalAws;
let a: AccountFixture;
let b: AccountFixture;

beforeAll(async () => {
  aws = await startLocalAws({ buckets: ["test-uploads"] });
  Object.assign(process.env, { S3_ENDPOINT: aws.endpoint, UPLOADS_BUCKET: "test-uploads", UPLOAD_URL_TTL_SECONDS: "120" });
  resetConfig();
  a = await makeAccount("Upload A");
  b = await makeAccount("Upload B");
});

afterAll(async () => {
  await aws?.stop();
});

const BOUNDARY = "----conversa-test-boundary";
function multipart(parts: { name: string; filename?: string; type?: string; data: Buffer | string }[]): Buffer {
  const chunks: Buffer[] = [];
  for (const p of parts) {
    const disp = `form-data; name="${p.name}"${p.filename ? `; filename="${p.filename}"` : ""}`;
    chunks.push(Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: ${disp}\r\n${p.type ? `Content-Type: ${p.type}\r\n` : ""}\r\n`));
    chunks.push(Buffer.isBuffer(p.data) ? p.data : Buffer.from(p.data));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}
const upload = (f: AccountFixture, body: Buffer, contentType = `multipart/form-data; boundary=${BOUNDARY}`) =>
  invoke("upload.create", { params: { account_id: f.accountId }, key: f.agentKey, body, headers: { "content-type": contentType } });

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(1000, 7)]);

describe("upload", () => {
  it("stores an attachment and returns a signed, time-limited file_url that serves the bytes", async () => {
    const res = await upload(a, multipart([{ name: "attachment", filename: "logo.png", type: "image/png", data: png }]));

    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ blob_id: 1, blob_key: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/) });
    const url = new URL(res.json.file_url);
    expect(url.searchParams.get("X-Amz-Expires")).toBe("120");
    expect(url.searchParams.get("X-Amz-Signature")).toBeTruthy();
    const got = await fetch(res.json.file_url, { signal: AbortSignal.timeout(5000) });
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(png)).toBe(true);
  });

  it("keeps a file name sent as raw UTF-8, as browsers send it", async () => {
    const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(100, 1)]);
    const res = await upload(a, multipart([{ name: "attachment", filename: "relatório ação.pdf", type: "application/pdf", data: pdf }]));

    expect(res.status).toBe(200);
    // The name is the stored object's last segment and the download's name.
    const url = new URL(res.json.file_url);
    expect(decodeURIComponent(url.pathname.split("/").at(-1)!)).toBe("relatório ação.pdf");
    expect(url.searchParams.get("response-content-disposition")).toBe(`attachment; filename*=UTF-8''${encodeURIComponent("relatório ação.pdf")}`);
  });

  it("lets a message reference the upload by attachment_ids", async () => {
    const inbox = (await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name: "I", channel: { type: "api" } } })).json.id;
    const contact = (await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name: "C" } })).json.payload.contact.id;
    const conv = (await invoke("conversations.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { inbox_id: inbox, contact_id: contact } })).json.id;

    const msg = await invoke("messages.create", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey, body: { attachment_ids: [1] } });
    const foreign = await invoke("messages.create", { params: { account_id: b.accountId, conversation_id: conv }, key: b.agentKey, body: { attachment_ids: [1] } });

    expect(msg.status).toBe(200);
    expect(msg.json.attachments).toEqual([
      {
        id: expect.any(Number),
        message_id: msg.json.id,
        account_id: a.accountId,
        file_type: "image",
        extension: "png",
        data_url: expect.stringContaining("X-Amz-Signature="),
        thumb_url: expect.stringContaining("X-Amz-Signature="),
        content_type: "image/png",
        file_name: "logo.png",
        file_size: png.length,
        blob_key: expect.any(String),
      },
    ]);
    expect(foreign.status).toBe(404);

    // The same upload on another message: the same file, an attachment of its own (its own id).
    const again = await invoke("messages.create", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey, body: { attachment_ids: ["1"] } });
    const [first] = msg.json.attachments;
    const [second] = again.json.attachments;
    expect(second).toMatchObject({ message_id: again.json.id, blob_key: first.blob_key, file_name: "logo.png", file_size: png.length });
    expect(new Set([1, first.id, second.id]).size).toBe(3);
    const listed = await invoke("messages.list", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey });
    const ids = listed.json.payload.flatMap((m: { attachments: { id: number }[] }) => m.attachments.map((x) => x.id));
    expect(ids.sort()).toEqual([first.id, second.id].sort());
  });

  it("refuses a missing, empty, oversize or disallowed file with a clear 4xx", async () => {
    const missing = await upload(a, multipart([{ name: "other", data: "x" }]));
    const empty = await upload(a, multipart([{ name: "attachment", filename: "e.txt", type: "text/plain", data: "" }]));
    const html = await upload(a, multipart([{ name: "attachment", filename: "x.html", type: "text/html", data: "<script>alert(1)</script>" }]));
    const svg = await upload(a, multipart([{ name: "attachment", filename: "x.svg", type: "image/svg+xml", data: "<svg/>" }]));
    const big = await upload(a, multipart([{ name: "attachment", filename: "big.pdf", type: "application/pdf", data: Buffer.alloc(4 * 1024 * 1024 + 1, 1) }]));
    const notMultipart = await upload(a, Buffer.from("{}"), "application/json");

    expect(missing.status).toBe(422);
    expect(missing.json.attributes).toEqual(["attachment"]);
    expect(empty.status).toBe(422);
    expect(empty.json.errors[0].code).toBe("empty");
    expect(html.status).toBe(422);
    expect(html.json.errors[0].code).toBe("content_type");
    expect(svg.status).toBe(422);
    expect(big.status).toBe(413);
    expect(big.json).toEqual({ error: "Payload too large", code: "too_large" });
    expect(notMultipart.status).toBe(415);
  });

  it("answers a body cut off inside a file part with 400 bad_multipart, and goes on serving", async () => {
    const whole = multipart([{ name: "attachment", filename: "a.png", type: "image/png", data: png }]);
    const cut = whole.subarray(0, whole.indexOf(png) + 3);
    for (const body of [cut, Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="a.png"\r\n\r\nabc`)]) {
      const res = await upload(a, body);
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: "Malformed multipart body", code: "bad_multipart" });
    }
    await expect(formBody(cut, `multipart/form-data; boundary=${BOUNDARY}`, 1024 * 1024)).rejects.toMatchObject({ status: 400 });
    expect((await upload(a, whole)).status).toBe(200);
  });

  it("refuses a body over the route's limit before parsing it", async () => {
    const res = await upload(a, multipart([{ name: "attachment", filename: "huge.pdf", type: "application/pdf", data: Buffer.alloc(6 * 1024 * 1024, 1) }]));
    expect(res.status).toBe(413);
  });
});
