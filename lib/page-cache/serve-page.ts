import { type PageTarget, pageTarget, targetPath } from "./page-target";
import type { RenderedPage, RenderedPages } from "./rendered-pages";

/** A request the app renders itself, not from the cache: the cache's own renders carry it. */
export const RENDER_HEADER = "x-arena-render";
/**
 * `hit` (kept in this process), `kept` (a final evaluation's page read from the pages kept in PostgreSQL) or `miss`
 * (rendered for this reader and kept): which way a public page was answered.
 */
export const CACHE_HEADER = "x-arena-page-cache";
/** How long the cache took over the answer: the version question, and the render on a miss (ms). */
export const TIMING_HEADER = "x-arena-page-timing";

/** next-auth's session cookies: a signed-in reader (an operator reads more of an evaluation) is never served a kept page. */
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];
/** The App Router's own requests for a page's payload (client navigations, prefetches, refreshes). */
const ROUTER_HEADERS = [
  "rsc",
  "next-router-prefetch",
  "next-router-segment-prefetch",
  "next-router-state-tree",
  "next-action",
];

export interface PageCacheDeps {
  pages: RenderedPages;
  /** The version a page is kept at (page-version.ts); null: render it for each reader. */
  version(target: PageTarget): Promise<string | null>;
  /** The app's own answer for a path (RENDER_HEADER set); null when it is not a page to keep. */
  render(path: string): Promise<RenderedPage | null>;
  /** A final evaluation's page kept at `version` outside this process (kept-pages.ts), or null: render it. */
  kept?(target: PageTarget, version: string): Promise<RenderedPage | null>;
}

/** Pages that came from `kept` rather than a render: their answers say so. */
const fromKept = new WeakSet<RenderedPage>();

export interface PageRequest {
  method: string;
  url: URL;
  headers: Headers;
  cookieNames: readonly string[];
}

/** Whether this request may be answered from the cache, and for which page. */
export function cacheableTarget(request: PageRequest): PageTarget | null {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (request.headers.has(RENDER_HEADER)) return null;
  if (ROUTER_HEADERS.some((h) => request.headers.has(h)) || request.url.searchParams.has("_rsc")) return null;
  if (request.cookieNames.some((c) => SESSION_COOKIES.some((s) => c === s || c.startsWith(`${s}.`)))) return null;
  return pageTarget(request.url);
}

function answer(page: RenderedPage, request: PageRequest, how: "hit" | "kept" | "miss", timing: string): Response {
  const headers = new Headers(page.headers);
  headers.set(CACHE_HEADER, how);
  headers.set(TIMING_HEADER, timing);
  return new Response(request.method === "HEAD" ? null : (page.body as BodyInit), { status: page.status, headers });
}

/**
 * The page cache in front of the public pages: a reader who is not signed in gets the page as it was last rendered
 * at the current version of what it shows, rendered once per version and key. Null: let the app answer (not a
 * cacheable request, a page not to keep, or the cache could not render it).
 */
export async function servePage(request: PageRequest, deps: PageCacheDeps): Promise<Response | null> {
  const target = cacheableTarget(request);
  if (!target) return null;
  const t0 = performance.now();
  const version = await deps.version(target);
  if (version === null) return null;
  const versionMs = `version;dur=${(performance.now() - t0).toFixed(1)}`;
  const key = targetPath(target);
  const kept = deps.pages.get(key, version);
  if (kept) return answer(kept, request, "hit", versionMs);
  const t1 = performance.now();
  const rendered = await deps.pages.fill(key, version, async () => {
    const kept = deps.kept ? await deps.kept(target, version) : null;
    if (kept) fromKept.add(kept);
    return kept ?? deps.render(key);
  });
  if (!rendered) return null;
  const how = fromKept.has(rendered) ? "kept" : "miss";
  const timing = `${versionMs}, ${how === "kept" ? "kept" : "render"};dur=${(performance.now() - t1).toFixed(1)}`;
  return answer(rendered, request, how, timing);
}
