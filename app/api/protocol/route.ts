import { currentProtocol } from "@/lib/protocol";
import { publishedProtocol } from "@/lib/protocol/calibrations";
import { PROTOCOL_CACHE_CONTROL } from "@/lib/protocol/protocol-cache";

// rendered once at build time and answered from Next's prerender cache
export const dynamic = "force-static";

export function GET(): Response {
  return Response.json(publishedProtocol(currentProtocol()), { headers: { "cache-control": PROTOCOL_CACHE_CONTROL } });
}
