/**
 * The checkout page's function: the HTML (no-cache) names its content-hashed script and style
 * sheet by absolute URL; those are immutable; every reply carries the strict security headers;
 * an unknown file is a 404.
 */
import { describe, expect, it } from "vitest";
import { invoke } from "../support/api.ts";

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

describe("GET /checkout and /checkout/{asset}", () => {
  it("serves the HTML with no-cache and the security headers, naming hashed files by absolute URL", async () => {
    const res = await invoke("checkout.page");

    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.headers["content-security-policy"]).toBe(CSP);
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
    expect(res.headers["strict-transport-security"]).toMatch(/^max-age=\d{8,}; includeSubDomains$/);
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.text).toMatch(/<script src="\/checkout\/app\.[0-9a-f]{12}\.js"><\/script>/);
    expect(res.text).toMatch(/<link rel="stylesheet" href="\/checkout\/app\.[0-9a-f]{12}\.css">/);
    expect(res.text).not.toMatch(/<script>|<style>| style=| on\w+=/);
  });

  it("serves the script and the style sheet as immutable, and 404 for any other name", async () => {
    const html = (await invoke("checkout.page")).text;
    const js = /\/checkout\/(app\.[0-9a-f]{12}\.js)/.exec(html)![1]!;
    const css = /\/checkout\/(app\.[0-9a-f]{12}\.css)/.exec(html)![1]!;

    const [script, style, missing, stale] = await Promise.all([
      invoke("checkout.asset", { params: { asset: js } }),
      invoke("checkout.asset", { params: { asset: css } }),
      invoke("checkout.asset", { params: { asset: "config.json" } }),
      invoke("checkout.asset", { params: { asset: "app.000000000000.js" } }),
    ]);

    expect(script.status).toBe(200);
    expect(script.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(script.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(script.headers["content-security-policy"]).toBe(CSP);
    expect(script.text).toContain("/prefill?token=");
    expect(style.status).toBe(200);
    expect(style.headers["content-type"]).toBe("text/css; charset=utf-8");
    expect(style.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: "Resource could not be found", code: "not_found" });
    expect(stale.status).toBe(404);
    for (const inherited of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const res = await invoke("checkout.asset", { params: { asset: inherited } });
      expect([inherited, res.status, res.json]).toEqual([inherited, 404, { error: "Resource could not be found", code: "not_found" }]);
    }
  });
});
