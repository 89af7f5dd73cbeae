/** What the checkout page's browser tests share: a recording tab and a fresh customer for a link. */
import type { BrowserContext, Page, Request } from "playwright-core";

/**
 * A new tab (fresh sessionStorage) that records every request it makes and the addresses it
 * showed: its init script runs before the page's own, at the first frame and at DOMContentLoaded.
 */
export async function openTab(context: BrowserContext): Promise<{ page: Page; requests: Request[] }> {
  const page = await context.newPage();
  const requests: Request[] = [];
  page.on("request", (r) => requests.push(r));
  await page.addInitScript(`
    window.__seen = [];
    requestAnimationFrame(() => window.__seen.push(location.href));
    document.addEventListener("DOMContentLoaded", () => window.__seen.push(location.href));
  `);
  return { page, requests };
}

/** Customers with e-mails of their own (subscribe refuses a taken one), numbered per test file. */
export function customers(suffix: string): () => { name: string; email: string; phone: string; cnpj: string } {
  let n = 0;
  return () => {
    n += 1;
    return { name: "Fernanda Lima", email: `fernanda.${suffix}.${n}@padaria.com.br`, phone: "+55 (31) 98765-4321", cnpj: "12.ABC.345/01DE-35" };
  };
}
