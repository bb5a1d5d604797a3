import { type NextRequest, NextResponse } from "next/server";
import { appPageCache } from "@/lib/page-cache/app-page-cache";
import { servePage } from "@/lib/page-cache/serve-page";

/** The public pages readers load most, answered from the rendered-page cache (lib/page-cache) when they may be. */
export async function proxy(request: NextRequest): Promise<Response> {
  const deps = appPageCache();
  const served = deps
    ? await servePage(
        {
          method: request.method,
          url: new URL(request.url),
          headers: request.headers,
          cookieNames: request.cookies.getAll().map((c) => c.name),
        },
        deps,
      )
    : null;
  return served ?? NextResponse.next();
}

export const config = { matcher: ["/", "/tasks/:task", "/evaluations/:id"] };
