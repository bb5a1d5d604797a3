import { AppError } from "@/lib/http/app-error";
import { KEPT_HEADERS_HEADER, KEPT_VERSION_HEADER } from "@/lib/page-cache/app-page-cache";
import type { KeptPage } from "@/lib/page-cache/kept-page";
import { readKeptPage, readKeptPageNow } from "@/lib/page-cache/kept-pages";
import { pageTarget } from "@/lib/page-cache/page-target";
import { withPageCacheCaller } from "@/lib/page-cache/with-page-cache-caller";

export const dynamic = "force-dynamic";

/**
 * The page cache's read of a final evaluation's kept page, from inside this process only: the HTML at `version`,
 * gzipped as it is kept (the cache unpacks it: a tenth of the bytes through this route), with its headers (as JSON in
 * one header), or 204 when none is kept at it. Without `version`, at the page's version now, read with the kept row
 * and sent as JSON in a header (null: not final): a first read's one question.
 */
export const GET = withPageCacheCaller(async (request: Request) => {
  const params = new URL(request.url).searchParams;
  const path = params.get("path") ?? "";
  const version = params.get("version");
  const target = path.startsWith("/") ? pageTarget(new URL(path, "http://page.invalid")) : null;
  if (target?.kind !== "evaluation") {
    throw new AppError({ code: "invalid_request", message: "path: not an evaluation's page" });
  }
  if (version === "") throw new AppError({ code: "invalid_request", message: "version: empty" });
  let page: KeptPage | null;
  const headers = new Headers();
  if (version === null) {
    const now = await readKeptPageNow(target.id);
    headers.set(KEPT_VERSION_HEADER, JSON.stringify(now.version));
    page = now.page;
  } else page = await readKeptPage(target.id, version);
  if (!page) return new Response(null, { status: 204, headers });
  headers.set("content-type", "application/gzip");
  headers.set(KEPT_HEADERS_HEADER, JSON.stringify(page.headers));
  return new Response(page.gzipped as BodyInit, { status: 200, headers });
});
