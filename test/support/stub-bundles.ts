/**
 * A stand-in bundle for every function, for infra tests that read the synthesized template but
 * not the code (test/infra/stack.test.ts synthesizes the real bundles): no esbuild run.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { functionNames } from "../../infra/build.ts";

export interface StubBundles {
  readonly dir: string;
  remove(): void;
}

export function stubBundles(prefix = "conversa-stub-"): StubBundles {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  for (const fn of functionNames()) {
    mkdirSync(join(dir, fn), { recursive: true });
    writeFileSync(join(dir, fn, "index.mjs"), "export const handler = async () => ({ statusCode: 200 });\n");
  }
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
