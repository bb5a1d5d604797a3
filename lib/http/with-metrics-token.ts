import { createHash, timingSafeEqual } from "node:crypto";
import { env } from "../env";
import { AppError } from "./app-error";
import { withErrors } from "./with-token";

const digest = (value: string) => createHash("sha256").update(value).digest();

/**
 * The operators' scrape surface (GET /api/metrics): the same checks and error mapping as any public route, then the
 * bearer token must be METRICS_TOKEN, compared in constant time. Without METRICS_TOKEN the surface does not exist.
 */
export function withMetricsToken(handler: (request: Request) => Promise<Response>) {
  return withErrors(async (request) => {
    const expected = env().METRICS_TOKEN;
    if (!expected) throw new AppError({ code: "not_found", message: "metrics are not enabled on this arena" });
    const given = /^Bearer (\S+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!timingSafeEqual(digest(given), digest(expected)))
      throw new AppError({ code: "unauthorized", message: "a metrics bearer token is required" });
    return handler(request);
  });
}
