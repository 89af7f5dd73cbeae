/**
 * Bundles every Lambda in one esbuild pass: `functions/<fn>.ts` for each route of the route
 * table plus each worker of the worker table (`extraFunctions`), into `.build/functions/<fn>/index.mjs` (+ `index.mjs.map`).
 *
 * `npm run build` runs this file and prints the bundle sizes; the CDK app and the cold-start
 * benchmark call `buildFunctions()`.
 */
import { build, type Plugin } from "esbuild";
import { mkdir, writeFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { routes } from "../shared/routes.ts";
import { workers } from "../shared/workers.ts";
import { buildWebAssets, writeWebAssets } from "../web/build.ts";
import type { WebAssets } from "../web/assets.ts";

/** Repository root (this file lives in infra/). */
export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** Default output directory; the stack takes its assets from here. */
export const DEFAULT_OUT_DIR = join(ROOT, ".build", "functions");

/** Largest accepted minified bundle, in bytes. */
export const MAX_BUNDLE_BYTES = 500_000;

/**
 * What a function may add to the AWS SDK it bundles: its own code, zod, middy and the multipart
 * parser. A cold start spends its time compiling the bundle's source, about 0.1 ms per KB (see
 * docs/benchmarks.md), so these bytes are its cost over the SDK alone: every function stays within
 * MAX_OWN_BYTES and the median function within MAX_MEDIAN_OWN_BYTES (test/infra/stack.test.ts).
 */
export const MAX_OWN_BYTES = 140_000;
export const MAX_MEDIAN_OWN_BYTES = 92_000;

/** Packages that are the AWS SDK: its clients and runtime, and what only they depend on. */
const SDK_PACKAGE = /^(@aws-sdk|@smithy|@aws|@aws-crypto)\/|^(mnemonist|obliterator|tslib|fast-xml-parser|strnum|bowser)$/;

/** The npm package a bundle input comes from (`@scope/name` or `name`), or undefined for the repository's own files. */
export function packageOf(input: string): string | undefined {
  const parts = input.split(/(?:^|\/)node_modules\//);
  if (parts.length < 2) return undefined;
  return /^(?:@[^/]+\/)?[^/]+/.exec(parts.at(-1)!)?.[0];
}

/** True when a bundle input is part of the AWS SDK. */
export const isSdkInput = (input: string): boolean => {
  const pkg = packageOf(input);
  return pkg !== undefined && SDK_PACKAGE.test(pkg);
};

/** Function files under functions/ that are not behind a route: the queue workers (shared/workers.ts). */
export const extraFunctions: readonly string[] = workers.map((w) => w.fn);

/** The HTTP API's `$default` route function: a trailing slash ignored, else the API's 404 (infra/stack.ts). */
export const ROUTER_FN = "api-router";

/** What `@aws-sdk/credential-provider-node` is replaced with (see the shim's comment). */
export const CREDENTIAL_SHIM = join(ROOT, "infra", "bundle", "credential-provider.ts");

/** What @middy/core gets for `node:stream/web` and `node:stream/promises` (see the shim's comment). */
export const MIDDY_STREAMS_SHIM = join(ROOT, "infra", "bundle", "middy-streams.ts");

const lazyMiddyStreams: Plugin = {
  name: "lazy-middy-streams",
  setup(b) {
    b.onResolve({ filter: /^node:stream\/(web|promises)$/ }, (args) =>
      /[\\/]@middy[\\/]core[\\/]/.test(args.importer) ? { path: MIDDY_STREAMS_SHIM } : undefined,
    );
  },
};

/**
 * busboy lists its two body types so that a bundler can leave one out: the functions parse only
 * multipart/form-data with it (form-encoded bodies are read by shared/http/form-params.ts), so
 * its urlencoded type is an empty module, which busboy's own filter drops.
 */
export const busboyMultipartOnly: Plugin = {
  name: "busboy-multipart-only",
  setup(b) {
    b.onResolve({ filter: /^\.\/types\/urlencoded$/ }, (args) =>
      /[\\/]busboy[\\/]lib$/.test(args.resolveDir) ? { path: "busboy-urlencoded", namespace: "empty-module" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "empty-module" }, () => ({ contents: "module.exports = {};", loader: "js" }));
  },
};

/** The checkout page's files (web/assets.ts) are built here and embedded in the page function's bundle. */
export const WEB_ASSETS_MODULE = join(ROOT, "web", "assets.ts");

const embeddedWebAssets = (assets: WebAssets): Plugin => ({
  name: "embedded-web-assets",
  setup(b) {
    b.onResolve({ filter: /[\\/]web[\\/]assets\.ts$/ }, (args) =>
      resolve(args.resolveDir, args.path) === WEB_ASSETS_MODULE ? { path: WEB_ASSETS_MODULE, namespace: "web-assets" } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: "web-assets" }, () => ({
      contents: `const assets = ${JSON.stringify(assets)};\nexport const checkoutAssets = () => Promise.resolve(assets);\n`,
      loader: "js",
    }));
  },
});

/**
 * Some bundled CommonJS dependencies `require()` Node builtins; an ES module has no `require`,
 * so the banner makes one.
 */
const REQUIRE_BANNER = [
  'import { createRequire as __conversaCreateRequire } from "node:module";',
  "const require = __conversaCreateRequire(import.meta.url);",
].join("\n");

export interface BuiltFunction {
  readonly fn: string;
  /** Absolute path of the bundle. */
  readonly outfile: string;
  /** Size of the minified bundle (without its source map). */
  readonly bytes: number;
  /** The part of `bytes` that is not the AWS SDK (isSdkInput): what the function adds to it. */
  readonly ownBytes: number;
  /** The npm packages in the bundle, the AWS SDK's included. */
  readonly packages: readonly string[];
}

export interface BuildOptions {
  /** Where `<fn>/index.mjs` go; default `.build/functions`. */
  readonly outDir?: string;
}

/** Every function to bundle: the route table's (in table order), then the extra ones and the router. */
export function functionNames(): string[] {
  return [...new Set<string>([...routes.map((r) => r.fn), ...extraFunctions, ROUTER_FN])];
}

export async function buildFunctions(opts: BuildOptions = {}): Promise<BuiltFunction[]> {
  const outDir = resolve(opts.outDir ?? DEFAULT_OUT_DIR);
  const fns = functionNames();
  await mkdir(outDir, { recursive: true });
  const webAssets = await buildWebAssets();
  // The files themselves, for a look or a CDN: `.build/web/` beside the default output.
  if (outDir === resolve(DEFAULT_OUT_DIR)) await writeWebAssets(webAssets);

  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: fns.map((fn) => ({ in: join(ROOT, "functions", `${fn}.ts`), out: `${fn}/index` })),
    outdir: outDir,
    outExtension: { ".js": ".mjs" },
    platform: "node",
    target: "node22",
    format: "esm",
    bundle: true,
    minify: true,
    treeShaking: true,
    sourcemap: "linked",
    sourcesContent: false,
    mainFields: ["module", "main"],
    banner: { js: REQUIRE_BANNER },
    alias: { "@aws-sdk/credential-provider-node": CREDENTIAL_SHIM },
    plugins: [lazyMiddyStreams, busboyMultipartOnly, embeddedWebAssets(webAssets)],
    legalComments: "none",
    metafile: true,
    logLevel: "warning",
  });

  await writeFile(join(outDir, "meta.json"), JSON.stringify(result.metafile));

  const outputs = result.metafile.outputs;
  return fns.map((fn) => {
    const outfile = join(outDir, fn, "index.mjs");
    const key = relative(ROOT, outfile).split("\\").join("/");
    const meta = outputs[key];
    if (!meta) throw new Error(`esbuild produced no ${key}`);
    const inputs = Object.entries(meta.inputs);
    const ownBytes = inputs.filter(([input]) => !isSdkInput(input)).reduce((sum, [, i]) => sum + i.bytesInOutput, 0);
    const packages = [...new Set(inputs.flatMap(([input]) => packageOf(input) ?? []))].sort();
    return { fn, outfile, bytes: meta.bytes, ownBytes, packages };
  });
}

/** A fixed-width table of bundle sizes; over-limit rows are flagged. */
export function sizeTable(built: readonly BuiltFunction[]): string {
  const width = Math.max("function".length, ...built.map((b) => b.fn.length));
  const lines = [`${"function".padEnd(width)}  ${"KB".padStart(8)}  ${"own KB".padStart(8)}`];
  for (const b of built) {
    const flags = [
      ...(b.bytes > MAX_BUNDLE_BYTES ? [`OVER ${MAX_BUNDLE_BYTES / 1000} KB`] : []),
      ...(b.ownBytes > MAX_OWN_BYTES ? [`own code OVER ${MAX_OWN_BYTES / 1000} KB`] : []),
    ];
    lines.push(`${b.fn.padEnd(width)}  ${(b.bytes / 1000).toFixed(1).padStart(8)}  ${(b.ownBytes / 1000).toFixed(1).padStart(8)}${flags.length ? `  ${flags.join(", ")}` : ""}`);
  }
  lines.push(`\nown KB: what a function adds to the AWS SDK it bundles (limit ${MAX_OWN_BYTES / 1000} KB each, ${MAX_MEDIAN_OWN_BYTES / 1000} KB for the median)`);
  return lines.join("\n");
}

const isScript = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (isScript) {
  const started = performance.now();
  const built = await buildFunctions();
  console.log(sizeTable(built));
  console.log(`\n${built.length} functions in ${Math.round(performance.now() - started)} ms -> ${relative(ROOT, DEFAULT_OUT_DIR)}`);
  const over = built.filter((b) => b.bytes > MAX_BUNDLE_BYTES);
  if (over.length) {
    console.error(`over the ${MAX_BUNDLE_BYTES} byte limit: ${over.map((b) => b.fn).join(", ")}`);
    process.exitCode = 1;
  }
}
