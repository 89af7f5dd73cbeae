/**
 * infra/bundle/middy-streams.ts stands in for `node:stream/web` and `node:stream/promises` in
 * @middy/core's bundled code: its streaming path must still recognise a web ReadableStream and
 * pipe, now loading them on first use.
 */
import { Readable, Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { pipeline, ReadableStream as ShimReadableStream } from "../../infra/bundle/middy-streams.ts";

describe("middy streams shim", () => {
  it("recognises Node's web ReadableStream, and nothing else", () => {
    expect(new globalThis.ReadableStream() instanceof ShimReadableStream).toBe(true);
    expect(Readable.from(["x"]) instanceof ShimReadableStream).toBe(false);
    expect(({}) instanceof ShimReadableStream).toBe(false);
  });

  it("pipes like stream/promises' pipeline", async () => {
    const chunks: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        chunks.push(chunk.toString());
        done();
      },
    });
    await pipeline(Readable.from(["a", "b", "c"]), sink);
    expect(chunks.join("")).toBe("abc");
  });
});
