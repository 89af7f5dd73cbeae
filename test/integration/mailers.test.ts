/**
 * The two mailer adapters: `.eml` files (sandbox) and SES v2 `SendEmail`, the latter against a
 * real HTTP server on 127.0.0.1 standing in for the SES endpoint (SES_ENDPOINT).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resetConfig } from "../../shared/config.ts";
import { fileMailer, toEml } from "../../shared/mail/file-mailer.ts";
import { mailer } from "../../shared/mail/mailer.ts";

const message = { to: "ana@example.com", subject: "Reset password instructions", text: "Hello\r\n\r\nhttps://app.test/x?reset_password_token=abc\r\n" };

describe("file mailer", () => {
  let dir = "";
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "conversa-eml-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("writes one complete .eml per message, and no temp file", async () => {
    const m = fileMailer(dir, "no-reply@conversa.test", () => new Date("2030-05-06T07:08:09Z"));

    await m.send(message);
    await m.send({ ...message, to: "bob@example.com" });

    const files = (await readdir(dir)).sort();
    expect(files).toHaveLength(2);
    expect(files.every((f) => /^\d+-[0-9a-f]{12}\.eml$/.test(f))).toBe(true);
    const eml = await readFile(join(dir, files[0]!), "utf8");
    expect(eml).toContain("From: no-reply@conversa.test\r\n");
    expect(eml).toContain("Date: Mon, 06 May 2030 07:08:09 GMT\r\n");
    expect(eml).toMatch(/Message-ID: <\d+-[0-9a-f]{12}@conversa\.test>\r\n/);
    expect(eml).toContain("\r\n\r\nHello\r\n\r\nhttps://app.test/x?reset_password_token=abc\r\n");
  });

  it("keeps header values on one line and encodes non-ASCII subjects", () => {
    const eml = toEml("a@b.test", { to: "x@y.test\r\nBcc: evil@z.test", subject: "Redefinição", text: "t" }, new Date(0), "1");

    expect(eml).toContain("To: x@y.test Bcc: evil@z.test\r\n");
    expect(eml).not.toMatch(/^Bcc:/m);
    expect(eml).toContain(`Subject: =?UTF-8?B?${Buffer.from("Redefinição").toString("base64")}?=\r\n`);
  });
});

describe("SES v2 mailer", () => {
  let server: Server;
  const seen: { method: string; url: string; auth: string; body: string }[] = [];
  let reply = { status: 200, body: JSON.stringify({ MessageId: "m-1" }) };

  beforeAll(async () => {
    server = createServer((req: IncomingMessage, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.push({ method: req.method ?? "", url: req.url ?? "", auth: String(req.headers["authorization"] ?? ""), body: Buffer.concat(chunks).toString("utf8") });
        res.writeHead(reply.status, { "content-type": "application/json" });
        res.end(reply.body);
      });
    });
    await new Promise<void>((res) => server.listen(0, "127.0.0.1", () => res()));
    const addr = server.address();
    delete process.env["MAIL_DIR"];
    process.env["SES_ENDPOINT"] = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
    process.env["MAIL_FROM"] = "accounts@conversa.test";
    resetConfig();
  });

  afterAll(async () => {
    delete process.env["SES_ENDPOINT"];
    delete process.env["MAIL_FROM"];
    resetConfig();
    await new Promise<void>((res) => server.close(() => res()));
  });

  it("is picked when MAIL_DIR is unset, and sends a signed SendEmail from MAIL_FROM", async () => {
    await mailer().send(message);

    expect(seen).toHaveLength(1);
    const req = seen[0]!;
    expect(req.method).toBe("POST");
    expect(req.url).toBe("/v2/email/outbound-emails");
    expect(req.auth).toMatch(/^AWS4-HMAC-SHA256 Credential=.+\/ses\/aws4_request/);
    expect(JSON.parse(req.body)).toEqual({
      FromEmailAddress: "accounts@conversa.test",
      Destination: { ToAddresses: ["ana@example.com"] },
      Content: {
        Simple: {
          Subject: { Data: "Reset password instructions", Charset: "UTF-8" },
          Body: { Text: { Data: message.text, Charset: "UTF-8" } },
        },
      },
    });
  });

  it("rejects when SES refuses the message", async () => {
    reply = { status: 400, body: JSON.stringify({ message: "Email address is not verified." }) };
    const m = mailer();

    await expect(m.send(message)).rejects.toThrow(/not verified/);
  });
});
