/**
 * Form fields as Rails reads them into params (Rack's nested parameters), for the clients that
 * send `application/x-www-form-urlencoded` or multipart text fields where JSON is expected:
 * `name=Maria`, `attachment_ids[]=1&attachment_ids[]=2` (a list), `custom_attributes[plan]=pro`
 * and `webhook[subscriptions][]=inbox_created` (nested). A name given twice without `[]` keeps
 * its last value. Values stay strings: the schemas cast digits and booleans as Rails does.
 */
import { badEncoding, utf8, wellFormed } from "./encoding.ts";

/** Deeper bracket paths are taken as plain names (attribute maps stop at 10 levels anyway). */
const MAX_DEPTH = 32;
const NAME = /^([^[\]]+)((?:\[[^[\]]*\])*)$/;

type Params = Record<string, unknown>;

const isMap = (v: unknown): v is Params => typeof v === "object" && v !== null && !Array.isArray(v);

/** Own data properties only: a name such as `__proto__` is a field like any other, never a prototype. */
function put(target: Params, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
const own = (target: Params, key: string): unknown => (Object.hasOwn(target, key) ? target[key] : undefined);

/** The path of a field name: `a[b][]` → ["a", "b", ""]; a name that is not a bracket path is itself. */
function pathOf(name: string): string[] {
  const m = NAME.exec(name);
  if (!m) return [name];
  const keys = [...m[2]!.matchAll(/\[([^[\]]*)\]/g)].map((k) => k[1]!);
  // `[]` only at the end (a list of values); a list of maps (`a[][b]`) or a deep path: a plain name.
  if (keys.length > MAX_DEPTH || keys.slice(0, -1).includes("")) return [name];
  return [m[1]!, ...keys];
}

export function railsParams(pairs: Iterable<readonly [string, string]>): Params {
  const root: Params = {};
  for (const [name, value] of pairs) {
    const path = pathOf(name);
    let node = root;
    for (const key of path.slice(0, -2)) {
      const next = own(node, key);
      if (isMap(next)) node = next;
      else {
        const fresh: Params = {};
        put(node, key, fresh);
        node = fresh;
      }
    }
    const last = path.at(-1)!;
    if (path.length > 1 && last === "") {
      const key = path.at(-2)!;
      const list = own(node, key);
      put(node, key, Array.isArray(list) ? [...list, value] : [value]);
    } else if (path.length > 1) {
      const key = path.at(-2)!;
      let parent = own(node, key);
      if (!isMap(parent)) {
        parent = {};
        put(node, key, parent);
      }
      put(parent as Params, last, value);
    } else put(node, last, value);
  }
  return root;
}

/** One percent-encoded name or value (`+` is a space); a malformed escape or invalid UTF-8 is a 400. */
function decode(raw: string): string {
  let bytes: Buffer;
  try {
    bytes = Buffer.from(decodeURIComponent(raw.replace(/\+/g, " ")), "utf8");
  } catch {
    throw badEncoding("The form body");
  }
  const text = utf8(bytes);
  if (text === undefined || !wellFormed(text)) throw badEncoding("The form body");
  return text;
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
