import { AppError } from "@/lib/http/app-error";
import { errorResponse } from "@/lib/http/error-response";
import { isPageCacheCaller } from "./app-page-cache";

/**
 * The page cache's own surface (its internal routes): only this process's page cache is answered, anyone else is
 * told there is no such route. Not rate-limited: it asks once per page and version on behalf of readers, and all its
 * requests come from this process's address, whose API limit a few hundred pages a minute would spend (and then
 * every reader's first read rendered).
 */
export function withPageCacheCaller(handler: (request: Request) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    try {
      if (!isPageCacheCaller(request.headers)) throw new AppError({ code: "not_found", message: "no such route" });
      return await handler(request);
    } catch (error) {
      return errorResponse(error);
    }
  };
}
