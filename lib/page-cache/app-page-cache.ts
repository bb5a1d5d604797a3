import { randomUUID } from "node:crypto";
import { z } from "zod";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { unpackKeptPage } from "./kept-page";
import type { PageTarget } from "./page-target";
import { targetPath } from "./page-target";
import { type RenderedPage, RenderedPages } from "./rendered-pages";
import { type PageCacheDeps, RENDER_HEADER } from "./serve-page";

/**
 * What the web process's page cache shares between the proxy and the app's routes, which Next bundles apart but runs
 * in one process: the pages kept, and the key the app's version route asks of its callers.
 */
interface Shared {
  pages: RenderedPages;
  key: string;
  /** When a reader last asked for a cacheable page (performance.now()): the prerender yields to readers. */
  readerAt: number;
}
const slot = globalThis as typeof globalThis & { __arenaPageCache?: Shared };
function shared(): Shared {
  slot.__arenaPageCache ??= { pages: new RenderedPages(), key: randomUUID(), readerAt: -Infinity };
  return slot.__arenaPageCache;
}

/** The kept page's own headers, as JSON, on the kept-page route's answer. */
export const KEPT_HEADERS_HEADER = "x-arena-kept-headers";
/** The page's version now, as JSON (a string or null), on the kept-page route's answer when none was given. */
export const KEPT_VERSION_HEADER = "x-arena-kept-version";

/** Milliseconds since a reader last asked for a page through the cache. */
export function sinceLastReader(): number {
  return performance.now() - shared().readerAt;
}

/** The page kept in this process for `path` at `version`, if any. */
export function heldPage(path: string, version: string): RenderedPage | null {
  return shared().pages.get(path, version);
}

/** Whether a request to the version route comes from this process's page cache. */
export function isPageCacheCaller(headers: Headers): boolean {
  return headers.get(RENDER_HEADER) === shared().key;
}

/** Headers a kept page is not served with again: the connection's, the body's encoding, and what is per answer. */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "content-length",
  "content-encoding",
  "date",
  "set-cookie",
]);

const origin = () => env().PAGE_RENDER_ORIGIN ?? `http://127.0.0.1:${env().PORT}`;
let warned = false;

/** The app's own answer for a public page, as a reader who is not signed in gets it; null: not a page to keep. */
export async function renderPage(path: string): Promise<RenderedPage | null> {
  const response = await fetch(`${origin()}${path}`, {
    headers: { [RENDER_HEADER]: shared().key, accept: "text/html", "accept-encoding": "identity" },
    redirect: "manual",
    cache: "no-store",
  });
  const body = new Uint8Array(await response.arrayBuffer());
  if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/html")) return null;
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (!DROPPED.has(name)) headers.push([name, value]);
  });
  return { status: 200, headers, body };
}

const headerPairs = z.array(z.tuple([z.string(), z.string()]));

async function askKept(
  path: string,
  version?: string,
): Promise<{ version?: string | null; page: RenderedPage | null }> {
  const query = `path=${encodeURIComponent(path)}${version === undefined ? "" : `&version=${encodeURIComponent(version)}`}`;
  const response = await fetch(`${origin()}/api/internal/kept-page?${query}`, {
    headers: { [RENDER_HEADER]: shared().key, "accept-encoding": "identity" },
    cache: "no-store",
  });
  if (response.status !== 200 && response.status !== 204) throw new Error(`kept page: HTTP ${response.status}`);
  const now = response.headers.get(KEPT_VERSION_HEADER);
  const at = now === null ? undefined : z.string().nullable().parse(JSON.parse(now));
  if (response.status === 204) return { version: at, page: null };
  const headers = headerPairs.parse(JSON.parse(response.headers.get(KEPT_HEADERS_HEADER) ?? "[]"));
  // the route sends the body as kept, gzipped (app/api/internal/kept-page)
  return { version: at, page: unpackKeptPage({ headers, gzipped: new Uint8Array(await response.arrayBuffer()) }) };
}

/** Kept pages that came with their version's question (a first read's), for the `kept` that follows it. */
const arrived = new Map<string, { version: string; page: RenderedPage }>();

async function kept(target: PageTarget, version: string): Promise<RenderedPage | null> {
  if (target.kind !== "evaluation") return null;
  const path = targetPath(target);
  const came = arrived.get(path);
  arrived.delete(path);
  if (came?.version === version) return came.page;
  return (await askKept(path, version)).page;
}

/**
 * A page's version now. An evaluation's is asked with its kept page in one question, unless this process holds the
 * page (then only the version is asked): a first read then costs one request to the app, one query's time.
 */
async function askVersion(target: PageTarget, path: string): Promise<string | null> {
  if (target.kind === "evaluation" && !shared().pages.holds(path)) {
    const { version, page } = await askKept(path);
    if (version === undefined) throw new Error("kept page: no version in its answer");
    if (page && version !== null) {
      // a page whose read never followed (another reader's render of it was under way) is not kept here for long
      if (arrived.size >= 64) arrived.delete(arrived.keys().next().value as string);
      arrived.set(path, { version, page });
    }
    return version;
  }
  const response = await fetch(`${origin()}/api/internal/page-version?path=${encodeURIComponent(path)}`, {
    headers: { [RENDER_HEADER]: shared().key },
    cache: "no-store",
  });
  if (response.status !== 200) throw new Error(`page version: HTTP ${response.status}`);
  const { version } = (await response.json()) as { version: string | null };
  return version;
}

/**
 * How long a page's version answers for. Asking costs two aggregate scans of the evaluations (8–12 ms of PostgreSQL
 * at 10,000 evaluations) and a request to the app: asked per reader, fifty readers a second spend a core on it. Asked
 * at most once a second per page, a new score reaches readers within a second.
 */
export const VERSION_FRESH_MS = 1000;

const asked = new Map<string, { at: number; version: Promise<string | null> }>();

/** A page's version, asked of the app at most once per VERSION_FRESH_MS; a failed question is not kept. */
function version(target: PageTarget): Promise<string | null> {
  const path = targetPath(target);
  const now = performance.now();
  shared().readerAt = now;
  const held = asked.get(path);
  if (held && now - held.at < VERSION_FRESH_MS) return held.version;
  const question = askVersion(target, path);
  const entry = { at: now, version: question };
  asked.set(path, entry);
  question.catch(() => {
    if (asked.get(path) === entry) asked.delete(path);
  });
  return question;
}

/** The cache's parts in the web process; a render or version that fails leaves the answer to the app. */
export function appPageCache(): PageCacheDeps | null {
  if (env().PAGE_CACHE === "off") return null;
  const guard =
    <A extends unknown[], T>(f: (...a: A) => Promise<T | null>) =>
    async (...a: A): Promise<T | null> => {
      try {
        return await f(...a);
      } catch (error) {
        if (!warned) {
          warned = true;
          logger.warn("page cache: the app could not be asked, pages are rendered per reader", {
            origin: origin(),
            error: String(error),
          });
        }
        return null;
      }
    };
  return { pages: shared().pages, version: guard(version), render: guard(renderPage), kept: guard(kept) };
}
