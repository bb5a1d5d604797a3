import { remainingBudget } from "@/lib/budgets/remaining-budget";
import { withToken } from "@/lib/http/with-token";

export const GET = withToken(async (_request, { caller }) => {
  return Response.json({ account: caller.accountName, budget: await remainingBudget(caller.accountId, caller.kind) });
});
