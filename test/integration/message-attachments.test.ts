/**
 * Messages with files as Chatwoot clients send them (multipart/form-data, `attachments[]`):
 * the files land in the uploads bucket (fauxqs) with the sniffed type and their size, and the
 * message carries Chatwoot's attachment shape in its reply, the list, the transcript and its
 * event; bad parts and limits answer 422/413, never 5xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalAws, type LocalAws } from "../../infra/local/fauxqs.ts";
import { resetConfig } from "../../shared/config.ts";
import { invoke } from "../support/api.ts";
import { makeAccount, type AccountFixture } from "../support/fixtures.ts";
import { outboxOf } from "../support/outbox.ts";

let aws: LocalAws;
let a: AccountFixture;
let conv = 0;

const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(2000, 7)]);
const pdf = Buffer.concat([Buffer.from("%PDF-1.7\n"), Buffer.alloc(3000, 1)]);
const mp3 = Buffer.concat([Buffer.from("ID3"), Buffer.alloc(500, 2)]);

/** The bytes and Content-Type a browser or fetch sends for a FormData body. */
async function encode(fields: Record<string, string | string[]>, files: { name?: string; filename: string; type: string; data: Buffer }[]) {
  const fd = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const one of [v].flat()) fd.append(k, one);
  for (const f of files) fd.append(f.name ?? "attachments[]", new Blob([f.data], { type: f.type }), f.filename);
  const req = new Request("http://localhost/", { method: "POST", body: fd });
  return { body: Buffer.from(await req.arrayBuffer()), contentType: req.headers.get("content-type")! };
}

const send = async (route: "messages.create" | "messages.update", params: Record<string, number>, fields: Record<string, string | string[]>, files: Parameters<typeof encode>[1]) => {
  const { body, contentType } = await encode(fields, files);
  return invoke(route, { params: { account_id: a.accountId, ...params }, key: a.agentKey, body, headers: { "content-type": contentType } });
};

beforeAll(async () => {
  aws = await startLocalAws({ buckets: ["test-uploads"] });
  Object.assign(process.env, { S3_ENDPOINT: aws.endpoint, UPLOADS_BUCKET: "test-uploads", UPLOAD_URL_TTL_SECONDS: "300" });
  resetConfig();
  a = await makeAccount("Files Co");
  const inbox = (await invoke("inboxes.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name: "I", channel: { type: "api" } } })).json.id;
  const contact = (await invoke("contacts.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { name: "C" } })).json.payload.contact.id;
  conv = (await invoke("conversations.create", { params: { account_id: a.accountId }, key: a.agentKey, body: { inbox_id: String(inbox), contact_id: String(contact) } })).json.id;
});

afterAll(async () => {
  await aws?.stop();
});

describe("multipart message create", () => {
  it("stores the files by their content and returns Chatwoot's attachments everywhere", async () => {
    // Arrange: a PNG declared as octet-stream, a PDF, an MP3; booleans and maps as form text
    const files = [
      { filename: "photo.bin", type: "application/octet-stream", data: png },
      { filename: "doc.pdf", type: "application/pdf", data: pdf },
      { filename: "voice.mp3", type: "audio/mpeg", data: mp3 },
    ];

    // Act
    const res = await send("messages.create", { conversation_id: conv }, { content: "see files", private: "false", content_attributes: '{"k":1}' }, files);

    // Assert: the reply
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ content: "see files", private: false, content_attributes: { k: 1 } });
    const atts = res.json.attachments as Record<string, unknown>[];
    expect(atts.map((x) => [x.file_type, x.extension, x.file_size, x.content_type])).toEqual([
      ["image", "png", png.length, "image/png"],
      ["file", "pdf", pdf.length, "application/pdf"],
      ["audio", "mp3", mp3.length, "audio/mpeg"],
    ]);
    for (const x of atts) {
      expect(x).toMatchObject({ id: expect.any(Number), message_id: res.json.id, account_id: a.accountId, data_url: expect.stringContaining("X-Amz-Signature=") });
    }
    expect(atts[0]!.thumb_url).toBe(atts[0]!.data_url);
    expect(atts[1]!.thumb_url).toBe("");
    // Assert: the files in the bucket, with the sniffed type and their size
    const got = await fetch(String(atts[0]!.data_url), { signal: AbortSignal.timeout(5000) });
    expect(got.status).toBe(200);
    expect(got.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await got.arrayBuffer()).equals(png)).toBe(true);
    const gotPdf = await fetch(String(atts[1]!.data_url), { signal: AbortSignal.timeout(5000) });
    expect(Number(gotPdf.headers.get("content-length") ?? (await gotPdf.arrayBuffer()).byteLength)).toBe(pdf.length);
    // Assert: the event, the list, the transcript
    const events = await outboxOf(a.accountId, "message_created");
    const event = events.find((e) => e.payload.id === String(res.json.id));
    expect(event!.payload.attachments).toHaveLength(3);
    expect(event!.payload.attachments[0]).toMatchObject({ message_id: res.json.id, file_type: "image", data_url: expect.stringContaining("X-Amz-Signature=") });
    const list = await invoke("messages.list", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey });
    const listed = list.json.payload.find((m: { id: number }) => m.id === res.json.id);
    expect(listed.attachments.map((x: { id: number; data_url: string }) => [x.id, x.data_url.includes("X-Amz-Signature=")])).toEqual(atts.map((x) => [x.id, true]));
    const t = await invoke("conversations.transcript", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey });
    expect(t.json.payload.messages.find((m: { id: number }) => m.id === res.json.id).attachments).toHaveLength(3);
  });

  it("accepts files alone, and attachment_ids[] as form fields", async () => {
    // Act
    const res = await send("messages.create", { conversation_id: conv }, {}, [{ filename: "p.png", type: "image/png", data: png }]);

    // Assert
    expect(res.status).toBe(200);
    expect(res.json.content).toBeNull();
    expect(res.json.attachments).toHaveLength(1);
  });

  it("adds files to a message on update", async () => {
    // Arrange
    const created = await send("messages.create", { conversation_id: conv }, { content: "first" }, [{ filename: "a.pdf", type: "application/pdf", data: pdf }]);

    // Act
    const res = await send("messages.update", { conversation_id: conv, message_id: created.json.id }, { content: "edited" }, [{ filename: "b.png", type: "image/png", data: png }]);

    // Assert
    expect(res.status).toBe(200);
    expect(res.json.content).toBe("edited");
    expect(res.json.attachments.map((x: { file_type: string }) => x.file_type)).toEqual(["file", "image"]);
    const [updated] = (await outboxOf(a.accountId, "message_updated")).filter((e) => e.payload.id === String(created.json.id));
    expect(updated!.payload.attachments).toHaveLength(2);
  });

  it.each([
    ["unknown binary content", [{ filename: "x.png", type: "image/png", data: Buffer.from([0, 1, 2, 3, 0xfe, 0xff, 0, 9]) }], "attachments[0]"],
    ["an empty file", [{ filename: "e.png", type: "image/png", data: Buffer.alloc(0) }], "attachments[0]"],
    ["a file under another field name", [{ name: "file", filename: "p.png", type: "image/png", data: png }], "file"],
    ["11 files", Array.from({ length: 11 }, (_v, i) => ({ filename: `f${i}.png`, type: "image/png", data: png })), "attachments"],
  ])("refuses %s with 422 naming the part", async (_what, files, field) => {
    // Act
    const res = await send("messages.create", { conversation_id: conv }, { content: "x" }, files);

    // Assert
    expect(res.status).toBe(422);
    expect(res.json.attributes).toEqual([field]);
  });

  it("refuses a form over the route's limit with 413, and a bad boolean with 422", async () => {
    // Act
    const big = await send("messages.create", { conversation_id: conv }, { content: "x" }, [{ filename: "big.pdf", type: "application/pdf", data: Buffer.concat([pdf, Buffer.alloc(4_600_000, 1)]) }]);
    const bad = await send("messages.create", { conversation_id: conv }, { content: "x", private: "maybe" }, []);

    // Assert
    expect(big.status).toBe(413);
    expect(big.json).toEqual({ error: "Payload too large", code: "too_large" });
    expect(bad.status).toBe(422);
    expect(bad.json.attributes).toEqual(["private"]);
  });

  it("refuses a file part without a name (422), and a form of over 1,000 text fields (400), never a 500", async () => {
    const b = "nameless-boundary";
    const nameless = Buffer.concat([
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="content"\r\n\r\nhi\r\n--${b}\r\nContent-Disposition: form-data; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${b}--\r\n`),
    ]);
    const headers = { "content-type": `multipart/form-data; boundary=${b}` };
    const res = await invoke("messages.create", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey, body: nameless, headers });
    expect([res.status, res.json.errors]).toEqual([422, [{ field: "attachments", code: "unexpected", message: "is not a file field (use attachments[])" }]]);

    const fields = Object.fromEntries(Array.from({ length: 1001 }, (_, i) => [`content_attributes[k${i}]`, "v"]));
    const many = await send("messages.create", { conversation_id: conv }, { content: "x", ...fields }, []);
    expect([many.status, many.json]).toEqual([400, { error: "The form has more than 1000 text fields", code: "bad_multipart" }]);
    // 60 fields are all kept (the limit was 50, and the rest were dropped without a word).
    const sixty = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`content_attributes[k${i}]`, "v"]));
    const kept = await send("messages.create", { conversation_id: conv }, { content: "x", ...sixty }, []);
    expect(Object.keys(kept.json.content_attributes)).toHaveLength(60);
  });
});

describe("the text of a form, held to its encoding as a JSON body is", () => {
  type Part = { name: string; data: Buffer; headers?: string[] };
  /** A multipart body written out byte for byte (FormData would re-encode the text). */
  function rawForm(parts: Part[]) {
    const b = "conversa-test-boundary";
    const chunks = parts.flatMap((p) => [
      Buffer.from(`--${b}\r\nContent-Disposition: form-data; name="${p.name}"\r\n${(p.headers ?? []).map((h) => `${h}\r\n`).join("")}\r\n`),
      p.data,
      Buffer.from("\r\n"),
    ]);
    return { body: Buffer.concat([...chunks, Buffer.from(`--${b}--\r\n`)]), contentType: `multipart/form-data; boundary=${b}` };
  }
  const post = (parts: Part[]) => {
    const { body, contentType } = rawForm(parts);
    return invoke("messages.create", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey, body, headers: { "content-type": contentType } });
  };
  const count = async () => (await invoke("messages.list", { params: { account_id: a.accountId, conversation_id: conv }, key: a.agentKey })).json.payload.length as number;
  const utf8 = (s: string) => Buffer.from(s, "utf8");

  it("refuses a field that is not valid UTF-8 with 400 bad_encoding, and stores nothing", async () => {
    const before = await count();

    const results = await Promise.all([
      post([{ name: "content", data: Buffer.from([0xff, 0xfe]) }]),
      post([{ name: "content", data: Buffer.concat([utf8("ok "), Buffer.from([0xc3, 0x28])]) }]),
      post([{ name: "content", data: utf8("fine") }, { name: "private", data: Buffer.from([0xe0, 0x80]) }]),
      post([{ name: "content", data: Buffer.from([0xed, 0xa0, 0x80]) }]), // an encoded surrogate
      post([{ name: "content", data: Buffer.from([0xff]), headers: ["Content-Type: text/plain; charset=utf-8"] }]),
      post([{ name: "content", data: utf8("x"), headers: ["Content-Type: text/plain; charset=no-such-charset"] }]),
    ]);

    for (const res of results) {
      expect(res.status).toBe(400);
      expect(res.json).toEqual({ error: expect.stringMatching(/^The form field \w+ is not valid UTF-8$/), code: "bad_encoding" });
    }
    expect(await count()).toBe(before);
  });

  it("stores valid UTF-8 exactly, U+FFFD included, and a part in the charset it names", async () => {
    const text = "ação, 日本語, 😀 and \uFFFD";
    const plain = await post([{ name: "content", data: utf8(text) }]);
    const named = await post([{ name: "content", data: utf8("ação"), headers: ["Content-Type: text/plain; charset=UTF-8"] }]);
    const latin1 = await post([{ name: "content", data: Buffer.from("ação", "latin1"), headers: ["Content-Type: text/plain; charset=iso-8859-1"] }]);
    const mixed = await post([
      { name: "content", data: utf8("señal") },
      { name: "content_attributes", data: Buffer.from('{"k":"ñ"}', "latin1"), headers: ["Content-Type: application/json; charset=latin1"] },
    ]);

    expect([plain.status, plain.json.content]).toEqual([200, text]);
    expect([named.status, named.json.content]).toEqual([200, "ação"]);
    expect([latin1.status, latin1.json.content]).toEqual([200, "ação"]);
    expect([mixed.status, mixed.json.content, mixed.json.content_attributes]).toEqual([200, "señal", { k: "ñ" }]);
  });
});
