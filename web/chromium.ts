/**
 * Headless Chromium (Debian's `chromium` package) driven by playwright-core, for the browser
 * tests, the page benchmark and the screenshot: a fresh profile each time, nothing that calls home.
 */
import { chromium, type BrowserContext } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const CHROMIUM = "/usr/bin/chromium";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(opts: { locale?: string } = {}): Promise<Browser> {
  const dir = mkdtempSync(join(tmpdir(), "conversa-chromium-"));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    locale: opts.locale ?? "pt-BR",
    viewport: { width: 900, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
