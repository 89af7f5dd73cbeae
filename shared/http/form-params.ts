/**
 * Form fields as Rails reads them into params (Rack's nested parameters), for the clients that
 * send `application/x-www-form-urlencoded` or multipart text fields where JSON is expected:
 * `name=Maria`, `attachment_ids[]=1&attachment_ids[]=2` (a list), `custom_attributes[plan]=pro`,
 * `webhook[subscriptions][]=inbox_created` (nested) and `items[][title]=A&items[][value]=a` (a
 * list of maps). A name given twice without `[]` keeps its last value. Values stay strings: the schemas cast digits and booleans as Rails does.
 */
import { ValidationError } from "../errors.ts";
import { badEncoding } from "./encoding.ts";

/** Deeper bracket paths are refused (a 422 naming the field; attribute maps stop at 10 levels anyway). */
const MAX_DEPTH = 32;
const NAME = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

type Params = Record<string, unknown>;

function isMap(v: unknown): v is Params {
  // Stryker disable next-line ConditionalExpression: a form holds strings, lists and maps, never null
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Own data properties only: a name such as `__proto__` is a field like any other, never a prototype. */
function put(target: Params, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
function own(target: Params, key: string): unknown {
  return Object.hasOwn(target, key) ? target[key] : undefined;
}

/**
 * The path of a field name: `a[b][]` → ["a", "b", ""] (an empty key is a list); a name that is not
 * a bracket path is itself.
 */
function pathOf(name: string): string[] {
  const m = NAME.exec(name);
  if (!m) return [name];
  const keys = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((k) => k[1]!);
  if (keys.length > MAX_DEPTH) throw ValidationError.field(m[1]!, "too_deep", `is nested deeper than ${MAX_DEPTH} levels`);
  return [m[1]!, ...keys];
}

/** Whether a map already holds the keys of a path (up to a list in it), as Rack asks before starting a new map of a list. */
function holds(map: Params, path: readonly string[]): boolean {
  let node: unknown = map;
  for (const key of path) {
    if (key === "") return true;
    if (!isMap(node) || !Object.hasOwn(node, key)) return false;
    node = node[key];
  }
  return true;
}

/** Sets `value` at `path` under `node`, as Rack's nested parameters do. */
function assign(node: Params, path: readonly string[], value: string): void {
  const [key, ...rest] = path as [string, ...string[]];
  if (rest.length === 0) return put(node, key, value);
  if (rest[0] === "") {
    // A list: `a[]=1` appends a value; `a[][b]=1` fills the last map of the list, or starts a new
    // one when that map has `b` already (`items[][title]=A&items[][title]=B` is two items).
    let list = own(node, key);
    if (!Array.isArray(list)) put(node, key, (list = []));
    const inner = rest.slice(1);
    if (inner.length === 0) return void (list as unknown[]).push(value);
    const last = (list as unknown[]).at(-1);
    if (isMap(last) && !holds(last, inner)) return assign(last, inner, value);
    const fresh: Params = {};
    assign(fresh, inner, value);
    (list as unknown[]).push(fresh);
    return;
  }
  let child = own(node, key);
  if (!isMap(child)) put(node, key, (child = {}));
  assign(child as Params, rest, value);
}

export function railsParams(pairs: Iterable<readonly [string, string]>): Params {
  const root: Params = {};
  for (const [name, value] of pairs) assign(root, pathOf(name), value);
  return root;
}

/**
 * One percent-encoded name or value (`+` is a space). decodeURIComponent refuses a malformed escape
 * and bytes that are not UTF-8 (a surrogate's among them): a 400. The text around the escapes is
 * the body's own, already valid UTF-8.
 */
function decode(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    throw badEncoding("The form body");
  }
}

/** An `application/x-www-form-urlencoded` body as Rails' params. */
export function urlEncodedParams(text: string): Params {
  const pairs = text
    .split("&")
    .filter((p) => p !== "")
    .map((p) => {
      const at = p.indexOf("=");
      return [decode(at < 0 ? p : p.slice(0, at)), at < 0 ? "" : decode(p.slice(at + 1))] as const;
    });
  return railsParams(pairs);
}
