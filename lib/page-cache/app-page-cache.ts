import { randomUUID } from "node:crypto";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
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
}
const slot = globalThis as typeof globalThis & { __arenaPageCache?: Shared };
function shared(): Shared {
  slot.__arenaPageCache ??= { pages: new RenderedPages(), key: randomUUID() };
  return slot.__arenaPageCache;
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

async function render(path: string): Promise<RenderedPage | null> {
  const response = await fetch(`${origin()}${path}`, {
    headers: { [RENDER_HEADER]: shared().key, accept: "text/html", "accept-encoding": "identity" },
    redirect: "manual",
  });
  const body = new Uint8Array(await response.arrayBuffer());
  if (response.status !== 200 || !response.headers.get("content-type")?.startsWith("text/html")) return null;
  const headers: [string, string][] = [];
  response.headers.forEach((value, name) => {
    if (!DROPPED.has(name)) headers.push([name, value]);
  });
  return { status: 200, headers, body };
}

async function version(target: PageTarget): Promise<string | null> {
  const response = await fetch(`${origin()}/api/page-version?path=${encodeURIComponent(targetPath(target))}`, {
    headers: { [RENDER_HEADER]: shared().key },
  });
  if (response.status !== 200) throw new Error(`page version: HTTP ${response.status}`);
  const { version } = (await response.json()) as { version: string | null };
  return version;
}

/** The cache's parts in the web process; a render or version that fails leaves the answer to the app. */
export function appPageCache(): PageCacheDeps | null {
  if (env().PAGE_CACHE === "off") return null;
  const guard =
    <A, T>(f: (a: A) => Promise<T | null>) =>
    async (a: A): Promise<T | null> => {
      try {
        return await f(a);
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
  return { pages: shared().pages, version: guard(version), render: guard(render) };
}
