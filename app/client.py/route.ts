import { CLIENT_VERSION } from "@/lib/client/versions";
import { withErrors } from "@/lib/http/with-token";
import { pythonClient } from "@/lib/kit/kit-files";

export const dynamic = "force-dynamic";

/** The Python client alone: `python3 client.py ...`, or saved as speculatorarena/client.py for `-m`. */
export const GET = withErrors(async () => {
  return new Response(await pythonClient(), {
    headers: {
      "content-type": "text/x-python; charset=utf-8",
      "content-disposition": 'inline; filename="client.py"',
      "cache-control": "no-cache",
      "x-speculatorarena-version": CLIENT_VERSION,
    },
  });
});
