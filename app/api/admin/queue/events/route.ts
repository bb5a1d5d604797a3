import { queueEventsSource } from "@/lib/admin/queue-events-source";
import { sseResponse } from "@/lib/http/sse";
import { withAdmin } from "@/lib/http/with-admin";

export const dynamic = "force-dynamic";

export const GET = withAdmin(async (request) => sseResponse(request, queueEventsSource()));
