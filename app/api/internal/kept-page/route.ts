import { AppError } from "@/lib/http/app-error";
import { KEPT_HEADERS_HEADER } from "@/lib/page-cache/app-page-cache";
import { readKeptPage } from "@/lib/page-cache/kept-pages";
import { pageTarget } from "@/lib/page-cache/page-target";
import { withPageCacheCaller } from "@/lib/page-cache/with-page-cache-caller";

export const dynamic = "force-dynamic";

/**
 * The page cache's read of a final evaluation's kept page, from inside this process only: the HTML at that version
 * with its headers (as JSON in one header), or 204 when none is kept at it.
 */
export const GET = withPageCacheCaller(async (request: Request) => {
  const params = new URL(request.url).searchParams;
  const path = params.get("path") ?? "";
  const version = params.get("version") ?? "";
  const target = path.startsWith("/") ? pageTarget(new URL(path, "http://page.invalid")) : null;
  if (target?.kind !== "evaluation") {
    throw new AppError({ code: "invalid_request", message: "path: not an evaluation's page" });
  }
  if (!version) throw new AppError({ code: "invalid_request", message: "version: required" });
  const page = await readKeptPage(target.id, version);
  if (!page) return new Response(null, { status: 204 });
  return new Response(page.body as BodyInit, {
    status: 200,
    headers: { "content-type": "application/octet-stream", [KEPT_HEADERS_HEADER]: JSON.stringify(page.headers) },
  });
});
