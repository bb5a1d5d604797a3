import { currentProtocol } from "@/lib/protocol";

export const dynamic = "force-static";

export function GET(): Response {
  return Response.json(currentProtocol());
}
