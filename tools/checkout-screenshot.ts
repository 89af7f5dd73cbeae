/**
 * `npm run screenshot:checkout`: docs/checkout-page.png, the real checkout page in the sandbox,
 * opened from a link made with a customer and a coupon (as a marketing site makes it).
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startSandbox } from "../infra/local/sandbox.ts";
import { launchChromium } from "../web/chromium.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
process.env["AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED"] ??= "true";

const sandbox = await startSandbox({ port: 0 });
const browser = await launchChromium();
try {
  const base = sandbox.info.apiBase;
  const res = await fetch(`${base}/api/v1/public_checkout/link`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      plan: "profissional",
      billing_cycle: "monthly",
      additional_inboxes: 2,
      coupon: "BEMVINDO15",
      customer: { name: "Fernanda Lima", email: "fernanda@padaria.com.br", phone: "+55 (31) 98765-4321", cnpj: "12.ABC.345/01DE-35" },
    }),
  });
  const { url } = (await res.json()) as { url: string };
  const page = await browser.context.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-prefilled]");
  await page.waitForSelector("#coupon-status:not(:empty)");
  const out = join(ROOT, "docs", "checkout-page.png");
  await page.screenshot({ path: out, fullPage: true });
  console.log(`wrote ${out}`);
} finally {
  await browser.close();
  await sandbox.stop();
}
