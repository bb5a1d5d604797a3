import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { CLIENT_VERSION } from "@/lib/client/versions";
import { withErrors } from "@/lib/http/with-token";
import { kitArchive } from "@/lib/kit/kit-files";

export const dynamic = "force-dynamic";

/** The participant's kit: the Python client, the local kit with its own Node, examples (built on first request). */
export const GET = withErrors(async () => {
  const { path, size } = await kitArchive();
  return new Response(Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array>, {
    headers: {
      "content-type": "application/gzip",
      "content-length": String(size),
      "content-disposition": `attachment; filename="speculatorarena-kit-${CLIENT_VERSION}.tar.gz"`,
      "cache-control": "no-cache",
      "x-speculatorarena-version": CLIENT_VERSION,
    },
  });
});
