import { registerAccount } from "@/lib/accounts/register-account";
import { readJson, withErrors } from "@/lib/http/with-token";

export const POST = withErrors(async (request) => {
  const issued = await registerAccount(await readJson(request));
  return Response.json(
    { token: issued.token, prefix: issued.prefix, account: issued.accountName, shown_once: true },
    { status: 201 },
  );
});
