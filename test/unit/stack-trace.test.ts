import { build } from "esbuild";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { execFile } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { log } from "../../shared/observability/log.ts";
import { mapStack } from "../../shared/observability/stack-trace.ts";

/**
 * The Lambdas run without --enable-source-maps (its parse costs every cold start); a logged
 * error's stack is mapped through the bundle's linked map instead. Built here the way
 * infra/build.ts builds a function: minified ESM with a linked map, sources relative to it.
 */
const run = promisify(execFile);

describe("mapStack", () => {
  let dir: string;
  let stack: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "conversa-stack-"));
    await mkdir(join(dir, "shared"), { recursive: true });
    await writeFile(
      join(dir, "shared", "thrower.ts"),
      [
        "export function handler(input: { n: number }): number {",
        "  const doubled = input.n * 2;",
        "  if (doubled > 2) throw new Error(`too big for jane@example.com: ${doubled}`);",
        "  return doubled;",
        "}",
        "",
      ].join("\n"),
    );
    await build({
      absWorkingDir: dir,
      entryPoints: [{ in: join(dir, "shared", "thrower.ts"), out: "thrower/index" }],
      outdir: join(dir, ".build", "functions"),
      outExtension: { ".js": ".mjs" },
      bundle: true,
      minify: true,
      format: "esm",
      platform: "node",
      sourcemap: "linked",
      sourcesContent: false,
      logLevel: "silent",
    });
    // A plain `node`, as in Lambda: vitest's own process maps stacks itself.
    const url = pathToFileURL(join(dir, ".build", "functions", "thrower", "index.mjs")).href;
    const child = `const m = await import(${JSON.stringify(url)}); try { m.handler({ n: 5 }); } catch (e) { process.stdout.write(e.stack); }`;
    stack = (await run(process.execPath, ["--input-type=module", "-e", child], { env: { PATH: process.env.PATH } })).stdout;
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("the raw stack points into the minified bundle", () => {
    expect(stack).toMatch(/thrower\/index\.mjs:1:\d+/);
    expect(stack).not.toContain("thrower.ts");
  });

  it("maps bundle frames to the original source, line and column", () => {
    const mapped = mapStack(stack);
    expect(mapped).toMatch(/\(shared\/thrower\.ts:3:\d+\)/);
    expect(mapped).not.toMatch(/thrower\/index\.mjs:/);
    expect(mapped.split("\n")[0]).toBe(stack.split("\n")[0]);
  });

  it("leaves frames without a map, and garbage, as they are", () => {
    const plain = "Error: x\n    at f (/nowhere/index.mjs:1:10)\n    at node:internal/process/task_queues:95:5";
    expect(mapStack(plain)).toBe(plain);
    expect(mapStack("")).toBe("");
  });

  it("a logged error carries the mapped, redacted stack", () => {
    const lines: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((line: string) => void lines.push(line));
    try {
      const err = new Error("too big for jane@example.com");
      err.stack = stack;
      log.error("unexpected", { err });
    } finally {
      spy.mockRestore();
    }
    const entry = JSON.parse(lines[0]!) as { err: { stack: string } };
    expect(entry.err.stack).toMatch(/shared\/thrower\.ts:3:\d+/);
    expect(entry.err.stack).not.toContain("jane@example.com");
    expect(entry.err.stack).toContain("[email]");
  });
});
