/**
 * The one loader of handler modules by file: `functions/<fn>.ts`, the module that is bundled and
 * deployed, imported once per process. The sandbox's gateway and queue poller, and the tests
 * that invoke handlers directly, call it.
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

/** The functions/ directory (this file lives in infra/local/). */
export const FUNCTIONS_DIR = resolve(import.meta.dirname, "../../functions");

const modules = new Map<string, Promise<unknown>>();

/** The `handler` export of functions/<fn>.ts; the caller names its type (an API or an SQS handler). */
export function loadHandler<H>(fn: string): Promise<H> {
  let p = modules.get(fn);
  if (!p) {
    p = import(pathToFileURL(resolve(FUNCTIONS_DIR, `${fn}.ts`)).href).then((m: { handler?: unknown }) => {
      if (typeof m.handler !== "function") throw new Error(`functions/${fn}.ts exports no handler`);
      return m.handler;
    });
    modules.set(fn, p);
  }
  return p as Promise<H>;
}
