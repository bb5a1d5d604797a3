import { getSubmission } from "@/lib/submissions/get-submission";
import { withToken } from "@/lib/http/with-token";

export const GET = withToken<{ id: string }>(async (_request, { params }) => {
  return Response.json(await getSubmission(params.id));
});
