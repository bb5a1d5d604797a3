import { withAdmin } from "@/lib/http/with-admin";
import { revokeToken } from "@/lib/tokens/revoke-token";

export const POST = withAdmin<{ id: string }>(async (_request, { params }) =>
  Response.json(await revokeToken(params.id)),
);
