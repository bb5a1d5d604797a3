import { readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { installPeerAddress } from "../http/peer-address";
import { serveHandler } from "./serve-handler";

const APP_DIR = fileURLToPath(new URL("../../app/", import.meta.url));

interface Route {
  /** The URL path pattern: literal segments, `:name` for `[name]`, `*name` for `[...name]`. */
  segments: string[];
  file: string;
}

/** Every `route.ts` under app/, routed as Next's app router routes it: groups dropped, `[x]` and `[...x]` as params. */
export function appRoutes(appDir = APP_DIR): Route[] {
  const routes: Route[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name === "route.ts") {
        const segments = relative(appDir, dir)
          .split(sep)
          .filter((s) => s !== "" && !/^\(.*\)$/.test(s))
          .map((s) => (s.startsWith("[...") ? `*${s.slice(4, -1)}` : s.startsWith("[") ? `:${s.slice(1, -1)}` : s));
        routes.push({ segments, file: full });
      }
    }
  };
  walk(appDir);
  // literal segments win over params, params over catch-alls, as Next ranks them
  const rank = (s: string) => (s.startsWith("*") ? 2 : s.startsWith(":") ? 1 : 0);
  return routes.sort((a, b) => {
    for (let i = 0; i < Math.max(a.segments.length, b.segments.length); i++) {
      const d = rank(a.segments[i] ?? "") - rank(b.segments[i] ?? "");
      if (d !== 0) return d;
    }
    return a.segments.length - b.segments.length;
  });
}

function match(route: Route, path: string[]): Record<string, string | string[]> | null {
  const params: Record<string, string | string[]> = {};
  for (let i = 0; i < route.segments.length; i++) {
    const segment = route.segments[i]!;
    if (segment.startsWith("*")) {
      if (i >= path.length) return null;
      params[segment.slice(1)] = path.slice(i);
      return params;
    }
    if (i >= path.length) return null;
    if (segment.startsWith(":")) params[segment.slice(1)] = path[i]!;
    else if (segment !== path[i]) return null;
  }
  return route.segments.length === path.length ? params : null;
}

type RouteModule = Record<string, (request: Request, context: { params: Promise<unknown> }) => Promise<Response>>;

/**
 * The app's route handlers as one fetch handler, dispatched as Next dispatches them (the route's module, its method's
 * export, the params as a promise); a path no route serves answers 404 and a method it lacks 405, as Next does.
 */
export function appRouteHandler(appDir = APP_DIR): (request: Request) => Promise<Response> {
  const routes = appRoutes(appDir);
  const modules = new Map<string, Promise<RouteModule>>();
  return async (request) => {
    const path = new URL(request.url).pathname
      .split("/")
      .filter((s) => s !== "")
      .map((s) => decodeURIComponent(s));
    for (const route of routes) {
      const params = match(route, path);
      if (!params) continue;
      if (!modules.has(route.file)) modules.set(route.file, import(route.file) as Promise<RouteModule>);
      const handler = (await modules.get(route.file)!)[request.method];
      if (!handler) return new Response(null, { status: 405 });
      return handler(request, { params: Promise.resolve(params) });
    }
    return new Response("not found", { status: 404 });
  };
}

/**
 * The app's API over a real socket on 127.0.0.1, with the peer address written as the web app's instrumentation
 * writes it: what the clients and the OpenAPI check speak to where a built `next start` would take minutes.
 */
export async function serveApp(appDir = APP_DIR, port = 0) {
  installPeerAddress();
  return serveHandler(appRouteHandler(appDir), port);
}
