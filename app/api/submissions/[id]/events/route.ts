import { evaluationEventsSource } from "@/lib/evaluations/evaluation-events-source";
import { sseResponse } from "@/lib/http/sse";
import { withErrors } from "@/lib/http/with-token";

export const dynamic = "force-dynamic";

export const GET = withErrors<{ id: string }>(async (request, { params }) =>
  sseResponse(request, await evaluationEventsSource(params.id)),
);
