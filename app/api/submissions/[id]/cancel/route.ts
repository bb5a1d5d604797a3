import { cancelEvaluation } from "@/lib/evaluations/cancel-evaluation";
import { withToken } from "@/lib/http/with-token";

export const POST = withToken<{ id: string }>(async (_request, { caller, params }) =>
  Response.json(await cancelEvaluation(params.id, caller.accountId)),
);
