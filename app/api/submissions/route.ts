import { env } from "@/lib/env";
import { withToken } from "@/lib/http/with-token";
import { createSubmission } from "@/lib/submissions/create-submission";
import { listOwnSubmissions } from "@/lib/submissions/list-submissions";

export const POST = withToken(
  async (_request, { caller, json }) => {
    const created = await createSubmission(caller, await json());
    return Response.json(created, { status: 201 });
  },
  // nothing is charged while the queue cannot take the job: 503, try again
  { maxBodyBytes: () => env().MAX_SUBMISSION_BODY_BYTES, needs: ["queue"] },
);

export const GET = withToken(async (_request, { caller }) => {
  return Response.json({ submissions: await listOwnSubmissions(caller.accountId) });
});
