import { AppError } from "@/lib/http/app-error";
import { withErrors } from "@/lib/http/with-token";
import { getProtocol } from "@/lib/protocol";
import { publishedProtocol } from "@/lib/protocol/calibrations";
import { PROTOCOL_CACHE_CONTROL } from "@/lib/protocol/protocol-cache";

export const GET = withErrors<{ version: string }>(async (_request, { params }) => {
  const protocol = getProtocol(params.version);
  if (!protocol)
    throw new AppError({ code: "not_found", message: `protocol version ${params.version} does not exist` });
  return Response.json(publishedProtocol(protocol), { headers: { "cache-control": PROTOCOL_CACHE_CONTROL } });
});
