/**
 * Matching a request path against the route table, as API Gateway does, plus the one rule
 * API Gateway cannot express: a trailing slash is ignored (`/inboxes/` = `/inboxes`), as Rails
 * ignores it for Chatwoot clients, repeated slashes count as one, and HEAD is answered as GET
 * without the body. The sandbox's gateway and the `$default` router function
 * (functions/api-router.ts) both match with this.
 */
import { routes, type Route } from "../routes.ts";
import type { Event } from "./context.ts";

/** The body of the 404 for a path no route serves (the API's not_found shape). */
export const NOT_FOUND_BODY = { error: "Resource could not be found", code: "not_found" } as const;

export interface RouteMatch {
  readonly route: Route;
  /** Percent-decoded path parameters (API Gateway decodes them too). */
  readonly params: Record<string, string>;
  /** The path the route serves (the request's, minus a trailing slash). */
  readonly path: string;
}

interface CompiledRoute {
  readonly route: Route;
  readonly regex: RegExp;
  readonly names: string[];
}

const compiled: CompiledRoute[] = (routes as readonly Route[]).map((route) => {
  const names: string[] = [];
  const pattern = route.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => {
    names.push(name);
    return "([^/]+)";
  });
  return { route, regex: new RegExp(`^${pattern}$`), names };
});

function decodeOrRaw(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/** `//api//v1` → `/api/v1`: repeated slashes read as one, as Rails squeezes them. */
export const squeezeSlashes = (path: string): string => path.replace(/\/{2,}/g, "/");

/** `/a/b/` → `/a/b`; `/` and paths without one are kept. */
export function withoutTrailingSlash(path: string): string {
  return path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
}

/** The route for an exact path (literal segments win over parameters, API Gateway's rule). */
export function matchExact(method: string, path: string): RouteMatch | undefined {
  const hits = compiled
    .filter((c) => c.route.method === method)
    .map((c) => ({ c, m: c.regex.exec(path) }))
    .filter((h) => h.m)
    .sort((a, b) => a.c.names.length - b.c.names.length);
  const hit = hits[0];
  if (!hit?.m) return undefined;
  const params: Record<string, string> = {};
  // A malformed escape stays as sent: the handler layer answers 400 bad_encoding from rawPath.
  hit.c.names.forEach((n, i) => (params[n] = decodeOrRaw(hit.m![i + 1]!)));
  return { route: hit.c.route, params, path };
}

/**
 * The route for a path, with or without one trailing slash, repeated slashes read as one. HEAD is
 * served by the GET route (as Rails does): the reply's status and headers without its body.
 */
export function matchRoute(method: string, path: string): RouteMatch | undefined {
  const m = method === "HEAD" ? "GET" : method;
  // A client joining "https://host/" and "/api/v1/..." sends `//api`.
  const p = squeezeSlashes(path);
  return matchExact(m, p) ?? (p.endsWith("/") ? matchExact(m, withoutTrailingSlash(p)) : undefined);
}

/**
 * The event API Gateway would have handed the matched route's function: the same request
 * (source IP, headers, body, request id) with the route's key, the path without its trailing
 * slash and the path parameters filled in.
 */
export function routedEvent(event: Event, match: RouteMatch): Event {
  const routeKey = `${match.route.method} ${match.route.path}`;
  const { pathParameters: _ignored, ...rest } = event;
  return {
    ...rest,
    routeKey,
    rawPath: match.path,
    ...(Object.keys(match.params).length ? { pathParameters: match.params } : {}),
    requestContext: { ...event.requestContext, routeKey, http: { ...event.requestContext.http, path: match.path } },
  };
}
