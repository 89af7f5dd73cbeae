import { api } from "../shared/http/api.ts";
import { NotFound } from "../shared/errors.ts";
import { checkoutAssets } from "../web/assets.ts";

/** Strict: the page loads only its own script and style sheet and calls only its own origin. */
const SECURITY_HEADERS = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  "referrer-policy": "no-referrer",
  "strict-transport-security": "max-age=63072000; includeSubDomains",
  "x-content-type-options": "nosniff",
};

// GET /checkout (no-cache: always the current hashes) and GET /checkout/{asset} (immutable).
export const handler = api(
  "checkout.page",
  {
    response: {
      status: 200,
      text: "HTML at /checkout; JavaScript or CSS at /checkout/{asset}",
      textTypes: ["text/html", "text/javascript", "text/css"],
      description: "The checkout page the links open, or one of its content-hashed files (404: no such file)",
      errors: [404],
    },
  },
  async (ctx) => {
    const assets = await checkoutAssets();
    const name = ctx.params["asset"];
    // Own names only: `__proto__` or `toString` are no file.
    const file = name === undefined ? assets.page : Object.hasOwn(assets.files, name) ? assets.files[name] : undefined;
    if (!file) throw new NotFound();
    const cacheControl = file.immutable ? "public, max-age=31536000, immutable" : "no-cache";
    return { text: file.body, contentType: file.contentType, headers: { ...SECURITY_HEADERS, "cache-control": cacheControl } };
  },
);
