import { withAdmin } from "@/lib/http/with-admin";
import { readJson } from "@/lib/http/with-token";
import { issueToken } from "@/lib/tokens/issue-token";
import { listTokens } from "@/lib/tokens/list-tokens";

export const POST = withAdmin(async (request, { admin }) => {
  const issued = await issueToken((await readJson(request)) as never, admin.accountId ?? undefined);
  return Response.json(issued, { status: 201 });
});

export const GET = withAdmin(async () => Response.json({ tokens: await listTokens() }));
