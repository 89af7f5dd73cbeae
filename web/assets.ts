/**
 * The checkout page's files as the page function serves them. In a Lambda bundle this module is
 * replaced by the built files themselves (infra/build.ts embeds them); the sandbox and the tests
 * run the function unbundled, so here they are built once, in process, from web/src.
 */

import type { WebAssets } from "./asset-types.ts";

export type { WebAsset, WebAssets } from "./asset-types.ts";

let built: Promise<WebAssets> | undefined;

export function checkoutAssets(): Promise<WebAssets> {
  built ??= import("./build.ts").then((m) => m.buildWebAssets());
  return built;
}
