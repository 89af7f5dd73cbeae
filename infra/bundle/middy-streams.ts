/**
 * Bundle-time stand-in for `node:stream/web` and `node:stream/promises` when @middy/core imports
 * them (routed here for @middy/core alone by infra/build.ts). Middy uses them only to answer with
 * a streamed response; none of our functions streams, yet loading Node's web streams at import
 * cost ~3.5 ms of every cold start. Here they load on first use instead: `instanceof
 * ReadableStream` asks Node's global class, `pipeline` imports the real module when called.
 */
import type { pipeline as realPipeline } from "node:stream/promises";

export class ReadableStream {
  static [Symbol.hasInstance](value: unknown): boolean {
    return value instanceof globalThis.ReadableStream;
  }
}

export const pipeline = (async (...args: unknown[]) => {
  const streams = await import("node:stream/promises");
  return (streams.pipeline as (...a: unknown[]) => Promise<void>)(...args);
}) as unknown as typeof realPipeline;
