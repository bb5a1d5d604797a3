import { readJson, withToken } from "@/lib/http/with-token";
import { createSubmission } from "@/lib/submissions/create-submission";
import { listOwnSubmissions } from "@/lib/submissions/list-submissions";

export const POST = withToken(async (request, { caller }) => {
  const created = await createSubmission(caller, await readJson(request));
  return Response.json(created, { status: 201 });
});

export const GET = withToken(async (_request, { caller }) => {
  return Response.json({ submissions: await listOwnSubmissions(caller.accountId) });
});
