import { withAdmin } from "@/lib/http/with-admin";
import { issueToken } from "@/lib/tokens/issue-token";
import { listTokens } from "@/lib/tokens/list-tokens";

export const POST = withAdmin(async (_request, { admin, json }) => {
  const issued = await issueToken((await json()) as never, admin.accountId ?? undefined);
  return Response.json(issued, { status: 201 });
});

export const GET = withAdmin(async () => Response.json({ tokens: await listTokens() }));
