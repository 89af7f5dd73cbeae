import type { IncomingMessage } from "node:http";

/**
 * A request's URL. An origin-form target is a path even when it starts with `//`
 * (`//evil.com/api/...` is that path, not a host); an absolute-form one is taken whole.
 */
export function requestUrl(req: IncomingMessage): URL {
  const target = req.url ?? "/";
  return target.startsWith("/") ? new URL(`http://localhost${target}`) : new URL(target, "http://localhost");
}
