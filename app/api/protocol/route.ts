import { currentProtocol } from "@/lib/protocol";
import { publishedProtocol } from "@/lib/protocol/calibrations";

export const dynamic = "force-static";

export function GET(): Response {
  return Response.json(publishedProtocol(currentProtocol()));
}
