/** The shape of the checkout page's files, shared by the builder and the page function. */

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
