import { AppError } from "@/lib/http/app-error";
import { pageTarget } from "@/lib/page-cache/page-target";
import { pageVersion } from "@/lib/page-cache/page-version";
import { withPageCacheCaller } from "@/lib/page-cache/with-page-cache-caller";

export const dynamic = "force-dynamic";

/** The page cache's question, from inside this process only: the version a public page is kept at (or null). */
export const GET = withPageCacheCaller(async (request: Request) => {
  const path = new URL(request.url).searchParams.get("path") ?? "";
  const target = path.startsWith("/") ? pageTarget(new URL(path, "http://page.invalid")) : null;
  if (!target) throw new AppError({ code: "invalid_request", message: "path: not a page the cache keeps" });
  return Response.json({ version: await pageVersion(target) });
});
