import { withToken } from "@/lib/http/with-token";
import { getSubmission } from "@/lib/submissions/get-submission";

export const GET = withToken<{ id: string }>(async (_request, { params, caller }) => {
  return Response.json(await getSubmission(params.id, caller));
});
