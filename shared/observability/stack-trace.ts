/**
 * Readable stack traces from the minified bundles, paid for only when an error is logged.
 *
 * `node --enable-source-maps` parses a function's whole source map at every cold start
 * (≈ 7 ms of the import time measured by bench:coldstart, for a map that is needed only when an
 * error is logged). Instead the bundles keep their linked `index.mjs.map` and this maps the
 * frames of a stack when it is logged: the map is read and parsed on first use, once per
 * container. Frames of files without a map (tests, the sandbox running the .ts sources, Node
 * internals) are left as they are; any failure leaves the stack unchanged.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

/** Per bundle file: its parsed map, or null when it has none (or it cannot be read). */
const maps = new Map<string, SourceMap | null>();

function mapOf(file: string): SourceMap | null {
  let map = maps.get(file);
  if (map !== undefined) return map;
  try {
    map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
  } catch {
    map = null;
  }
  maps.set(file, map);
  return map;
}

/** A bundle frame: `(file:///…/index.mjs:1:2345)` or `at /…/index.mjs:1:2345`. */
const FRAME = /((?:file:\/\/)?\/[^\s():]+\.mjs):(\d+):(\d+)/g;

/**
 * esbuild names sources relative to the map (a run of `../` then `shared/http/api.ts`): shown from the
 * repository root (`shared/http/api.ts`), the same wherever the bundle runs.
 */
const sourceName = (source: string): string => source.replace(/^(?:\.\.\/)+/, "");

/** The stack with each bundle position replaced by its original `source:line:column`. */
export function mapStack(stack: string): string {
  try {
    return stack.replace(FRAME, (whole, fileOrUrl: string, line: string, column: string) => {
      const file = fileOrUrl.startsWith("file:") ? fileURLToPath(fileOrUrl) : fileOrUrl;
      const map = mapOf(file);
      if (!map) return whole;
      const entry = map.findEntry(Number(line) - 1, Number(column) - 1) as {
        originalSource?: string;
        originalLine?: number;
        originalColumn?: number;
      };
      if (!entry?.originalSource || entry.originalLine === undefined || entry.originalColumn === undefined) return whole;
      return `${sourceName(entry.originalSource)}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    });
  } catch {
    return stack;
  }
}
