import { z } from "zod";
import { withAdmin } from "@/lib/http/with-admin";
import { readJson } from "@/lib/http/with-token";
import { isRegistrationOpen, setRegistrationOpen } from "@/lib/settings/registration";

const body = z.object({ open: z.boolean({ message: "must be true or false" }) }).strict();

export const PUT = withAdmin(async (request) => {
  const { open } = body.parse(await readJson(request));
  return Response.json({ open: await setRegistrationOpen(open) });
});

export const GET = withAdmin(async () => Response.json({ open: await isRegistrationOpen() }));
