import { z } from "zod";
import { withAdmin } from "@/lib/http/with-admin";
import { isRegistrationOpen, setRegistrationOpen } from "@/lib/settings/registration";

const body = z.object({ open: z.boolean({ message: "must be true or false" }) }).strict();

export const PUT = withAdmin(async (_request, { json }) => {
  const { open } = body.parse(await json());
  return Response.json({ open: await setRegistrationOpen(open) });
});

export const GET = withAdmin(async () => Response.json({ open: await isRegistrationOpen() }));
