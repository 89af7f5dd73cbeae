/** The pure pieces of Chatwoot compatibility: content sniffing, Rails-style casting, path matching. */
import { describe, expect, it } from "vitest";
import { fileTypeOf, sniff } from "../../shared/domain/file-sniff.ts";
import { boolField, intField } from "../../shared/http/schemas/common.ts";
import { matchRoute } from "../../shared/http/route-match.ts";

const head = (...parts: (string | number[])[]) => Buffer.concat([...parts.map((p) => (typeof p === "string" ? Buffer.from(p, "latin1") : Buffer.from(p))), Buffer.alloc(32, 0x11)]);

describe("sniff", () => {
  it.each([
    [head([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), "application/octet-stream", "image/png", "png"],
    [head([0xff, 0xd8, 0xff, 0xe0]), "image/png", "image/jpeg", "jpg"],
    [head("GIF89a"), "", "image/gif", "gif"],
    [head("RIFF", [0, 0, 0, 0], "WEBP"), "", "image/webp", "webp"],
    [head("%PDF-1.4"), "image/png", "application/pdf", "pdf"],
    [head("ID3"), "", "audio/mpeg", "mp3"],
    [head("OggS"), "", "audio/ogg", "ogg"],
    [head("RIFF", [0, 0, 0, 0], "WAVE"), "", "audio/wav", "wav"],
    [head([0, 0, 0, 0x18], "ftypisom"), "", "video/mp4", "mp4"],
    [head([0, 0, 0, 0x18], "ftypM4A "), "", "audio/mp4", "m4a"],
    [head([0x1a, 0x45, 0xdf, 0xa3]), "", "video/webm", "webm"],
    [head([0x50, 0x4b, 0x03, 0x04]), "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "docx"],
    [Buffer.from("a,b\n1,2\n"), "text/csv", "text/csv", "csv"],
    [Buffer.from("<html><script>x</script>"), "text/html", "text/plain", "txt"],
  ])("%#: reads the type from the bytes", (data, declared, type, ext) => {
    expect(sniff(data, declared)).toEqual({ contentType: type, extension: ext });
  });

  it("knows no type for binary content without a signature", () => {
    expect(sniff(Buffer.from([0, 1, 2, 3, 0xfe, 0xff, 0, 9]), "image/png")).toBeUndefined();
  });

  it("maps content types to Chatwoot's file_type", () => {
    expect(["image/png", "audio/ogg", "video/mp4", "application/pdf"].map(fileTypeOf)).toEqual(["image", "audio", "video", "file"]);
  });
});

describe("Rails-style casting of body fields", () => {
  it("takes numbers and digit strings as integers, nothing else", () => {
    const id = intField();
    expect([12, "12"].map((v) => id.safeParse(v).data)).toEqual([12, 12]);
    expect(["12a", "1.5", "-1", "", 0, 1.5, "99999999999999999", null].map((v) => id.safeParse(v).success)).toEqual([false, false, false, false, false, false, false, false]);
  });

  it("takes booleans and their form spellings", () => {
    const b = boolField();
    expect([true, false, "true", "false", "1", "0"].map((v) => b.safeParse(v).data)).toEqual([true, false, true, false, true, false]);
    expect(b.safeParse("yes").success).toBe(false);
  });
});

describe("path matching", () => {
  it("ignores one trailing slash and prefers literal segments", () => {
    expect(matchRoute("GET", "/api/v1/accounts/3/inboxes/")?.route.id).toBe("inboxes.list");
    expect(matchRoute("GET", "/api/v1/accounts/3/conversations/meta/")?.route.id).toBe("conversations.meta");
    expect(matchRoute("GET", "/api/v1/accounts/3/inboxes/7/")).toMatchObject({ params: { account_id: "3", inbox_id: "7" }, path: "/api/v1/accounts/3/inboxes/7" });
    // Repeated slashes are one, as Rails squeezes them.
    expect(matchRoute("GET", "/api/v1/accounts/3/inboxes//")?.route.id).toBe("inboxes.list");
    expect(matchRoute("GET", "//api/v1//accounts/3/inboxes/7")).toMatchObject({ params: { account_id: "3", inbox_id: "7" }, path: "/api/v1/accounts/3/inboxes/7" });
    expect(matchRoute("GET", "//evil.example/api/v1/accounts/3")).toBeUndefined();
    expect(matchRoute("DELETE", "/api/v1/accounts/3/inboxes/")).toBeUndefined();
  });
});
