/**
 * The checkout page's files as the page function serves them. In a Lambda bundle this module is
 * replaced by the built files themselves (infra/build.ts embeds them); the sandbox and the tests
 * run the function unbundled, so here they are built once, in process, from web/src.
 */

export interface WebAsset {
  readonly body: string;
  readonly contentType: string;
  /** Content-hashed: cached for a year. The HTML is not (`no-cache`). */
  readonly immutable: boolean;
}

export interface WebAssets {
  /** The HTML of `/checkout`. */
  readonly page: WebAsset;
  /** `/checkout/{name}`, by name (`app.<hash>.js`, `app.<hash>.css`). */
  readonly files: Readonly<Record<string, WebAsset>>;
}

let built: Promise<WebAssets> | undefined;

export function checkoutAssets(): Promise<WebAssets> {
  built ??= import("./build.ts").then((m) => m.buildWebAssets());
  return built;
}
