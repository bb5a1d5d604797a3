import { boardQuery, publicBoard } from "@/lib/board/public-board";
import { zodToAppError } from "@/lib/http/error-response";
import { withErrors } from "@/lib/http/with-token";

export const dynamic = "force-dynamic";

export const GET = withErrors(async (request) => {
  const query = boardQuery.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!query.success) throw zodToAppError(query.error);
  return Response.json(await publicBoard(query.data.task));
});
