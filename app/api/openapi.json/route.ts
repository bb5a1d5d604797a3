import { env } from "@/lib/env";
import { withErrors } from "@/lib/http/with-token";
import { openApiDocument } from "@/lib/openapi/document";

export const dynamic = "force-dynamic";

export const GET = withErrors(async () => Response.json(openApiDocument(env().ARENA_PUBLIC_URL)));
