import { assertRegistrationOpen, registerAccount } from "@/lib/accounts/register-account";
import { consume, limits } from "@/lib/http/rate-limit";
import { withErrors } from "@/lib/http/with-token";

export const POST = withErrors(async (_request, { address, json }) => {
  // Closed registration is answered before the body is read; each attempt while open counts against its address.
  await assertRegistrationOpen();
  await consume(limits.registrations(), address);
  const issued = await registerAccount(await json());
  return Response.json(
    { token: issued.token, prefix: issued.prefix, account: issued.accountName, shown_once: true },
    { status: 201 },
  );
});
