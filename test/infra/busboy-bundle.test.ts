/**
 * The bundles leave busboy's urlencoded type out (infra/build.ts): the multipart reader, bundled
 * that way, still parses a form with text fields and a file, and refuses a form-encoded body.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { busboyMultipartOnly } from "../../infra/build.ts";

const dir = mkdtempSync(join(tmpdir(), "conversa-busboy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("busboy in a bundle, multipart only", () => {
  it("parses multipart/form-data and leaves the urlencoded parser out", async () => {
    const entry = join(dir, "entry.ts");
    writeFileSync(entry, `export { formBody } from ${JSON.stringify(join(process.cwd(), "shared/http/multipart.ts"))};\n`);
    const out = join(dir, "out.mjs");
    const result = await build({ entryPoints: [entry], bundle: true, platform: "node", format: "esm", outfile: out, metafile: true, plugins: [busboyMultipartOnly], logLevel: "silent", banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" } });
    const inputs = Object.keys(result.metafile.inputs);
    expect(inputs.some((i) => /busboy[\\/]lib[\\/]types[\\/]multipart\.js$/.test(i))).toBe(true);
    expect(inputs.some((i) => /busboy[\\/]lib[\\/]types[\\/]urlencoded\.js$/.test(i))).toBe(false);

    const { formBody } = (await import(pathToFileURL(out).href)) as typeof import("../../shared/http/multipart.ts");
    const b = "bundle-boundary";
    const body = Buffer.from(
      `--${b}\r\nContent-Disposition: form-data; name="content"\r\n\r\nOlá\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="attachment_ids[]"\r\n\r\n7\r\n` +
        `--${b}\r\nContent-Disposition: form-data; name="attachments[]"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${b}--\r\n`,
    );
    const form = await formBody(body, `multipart/form-data; boundary=${b}`, 1024);
    expect(form.body).toEqual({ content: "Olá", attachment_ids: ["7"] });
    expect(form.files.map((f) => [f.field, f.filename, f.data.toString()])).toEqual([["attachments[]", "a.txt", "hello"]]);
    await expect(formBody(Buffer.from("a=1"), "application/x-www-form-urlencoded", 1024)).rejects.toMatchObject({ status: 400 });
  });
});
