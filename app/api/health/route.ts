import { checkHealth } from "@/lib/health/check-health";
import { unavailable } from "@/lib/http/error-response";
import { withErrors } from "@/lib/http/with-token";

export const dynamic = "force-dynamic";

/** Readiness: 200 while PostgreSQL and Redis both answer, else 503 with Retry-After naming the one that does not. */
export const GET = withErrors(async () => {
  const health = await checkHealth();
  if (!health.ok) throw unavailable(health.unreachable[0]!);
  return Response.json({ status: "ok", checks: { postgres: "ok", redis: "ok" } });
});
