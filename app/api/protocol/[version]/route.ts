import { AppError } from "@/lib/http/app-error";
import { withErrors } from "@/lib/http/with-token";
import { getProtocol } from "@/lib/protocol";
import { publishedProtocol } from "@/lib/protocol/calibrations";

export const GET = withErrors<{ version: string }>(async (_request, { params }) => {
  const protocol = getProtocol(params.version);
  if (!protocol)
    throw new AppError({ code: "not_found", message: `protocol version ${params.version} does not exist` });
  return Response.json(publishedProtocol(protocol));
});
