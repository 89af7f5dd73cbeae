import type { IncomingMessage } from "node:http";

/**
 * A request's URL. An origin-form target is a path even when it starts with `//`
 * (`//evil.com/api/...` is that path, not a host); an absolute-form one is taken whole.
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? "/";
  return target.startsWith("/") ? new URL(`http://localhost${target}`) : new URL(target, "http://localhost");
}

/**
 * Whether the target's path has a `.` or `..` segment (also percent-encoded). A URL parser would
 * resolve it (`/messages/..` read as its parent, another route); no route's path has one, so the
 * gateway answers it as an unknown path.
 */
export function hasDotSegment(req: IncomingMessage): boolean {
  const path = (req.url ?? "/").split("?")[0]!;
  return path.split("/").some((s) => /^(\.|%2e){1,2}$/i.test(s));
}
