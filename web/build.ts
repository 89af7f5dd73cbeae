/**
 * Builds the checkout page (web/src) with esbuild: a minified script and style sheet named by
 * their content hash, and the HTML that references them by absolute URL (`/checkout/app.<hash>.js`).
 *
 * `buildWebAssets()` returns the files (the page function's bundle embeds them, infra/build.ts);
 * `npm run build:web` also writes them with a manifest to `.build/web/`.
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { WebAsset, WebAssets } from "./asset-types.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SRC = join(ROOT, "web", "src");
export const WEB_OUT_DIR = join(ROOT, ".build", "web");

/** Browsers the page supports (a year or two back). */
const TARGET = ["chrome109", "firefox115", "safari15.4", "edge109"];

const hashed = (prefix: string, ext: string, body: string) => `${prefix}.${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${ext}`;

async function bundle(entry: string, loader: "ts" | "css"): Promise<string> {
  const result = await build({
    entryPoints: [join(SRC, entry)],
    bundle: true,
    minify: true,
    write: false,
    format: loader === "ts" ? "iife" : undefined,
    target: TARGET,
    legalComments: "none",
    charset: "utf8",
    logLevel: "warning",
    absWorkingDir: ROOT,
  });
  const out = result.outputFiles[0];
  if (!out) throw new Error(`esbuild produced nothing for ${entry}`);
  return out.text;
}

export async function buildWebAssets(): Promise<WebAssets> {
  const [js, css, template] = await Promise.all([
    bundle("checkout.ts", "ts"),
    bundle("checkout.css", "css"),
    readFile(join(SRC, "checkout.html"), "utf8"),
  ]);
  const jsName = hashed("app", "js", js);
  const cssName = hashed("app", "css", css);
  const html = template.replace("{{js}}", jsName).replace("{{css}}", cssName);
  const files: Record<string, WebAsset> = {
    [jsName]: { body: js, contentType: "text/javascript; charset=utf-8", immutable: true },
    [cssName]: { body: css, contentType: "text/css; charset=utf-8", immutable: true },
  };
  return { page: { body: html, contentType: "text/html; charset=utf-8", immutable: false }, files };
}

/** Writes the files and `manifest.json` (name → content type) to `outDir`. */
export async function writeWebAssets(assets: WebAssets, outDir = WEB_OUT_DIR): Promise<void> {
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, "checkout.html"), assets.page.body);
  for (const [name, file] of Object.entries(assets.files)) await writeFile(join(outDir, name), file.body);
  const manifest = { page: "checkout.html", files: Object.fromEntries(Object.entries(assets.files).map(([n, f]) => [n, f.contentType])) };
  await writeFile(join(outDir, "manifest.json"), `${JSON.stringify(manifest, null, 2)}\n`);
}

const isScript = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);

if (isScript) {
  const assets = await buildWebAssets();
  await writeWebAssets(assets);
  for (const [name, file] of [["checkout.html", assets.page] as const, ...Object.entries(assets.files)]) {
    console.log(`${name.padEnd(24)} ${(Buffer.byteLength(file.body) / 1000).toFixed(1).padStart(6)} KB`);
  }
}
