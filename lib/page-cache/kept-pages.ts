import { gunzipSync, gzipSync } from "node:zlib";
import { db } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/db/generated/client";
import type { RenderedPage } from "./rendered-pages";

const headerPairs = (value: unknown): [string, string][] =>
  Array.isArray(value)
    ? value.filter(
        (pair): pair is [string, string] =>
          Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string",
      )
    : [];

/**
 * A final evaluation's page as kept at `version`, or null when none is kept at that version. `version` may be a
 * promise: the row is read meanwhile.
 */
export async function readKeptPage(
  evaluationId: string,
  version: string | null | Promise<string | null>,
  client: PrismaClient = db(),
): Promise<RenderedPage | null> {
  const [row, at] = await Promise.all([
    client.keptEvaluationPage.findUnique({
      where: { evaluationId },
      select: { version: true, headers: true, body: true },
    }),
    version,
  ]);
  if (!row || at === null || row.version !== at) return null;
  return { status: 200, headers: headerPairs(row.headers), body: gunzipSync(row.body) };
}

/**
 * Keeps a final evaluation's page rendered at `version`, replacing the one kept before. Safe to run twice and from
 * two processes at once: the same version writes the same page.
 */
export async function keepPage(
  evaluationId: string,
  version: string,
  page: RenderedPage,
  client: PrismaClient = db(),
): Promise<void> {
  const body = new Uint8Array(gzipSync(page.body));
  const data = { version, headers: page.headers, body, keptAt: new Date() };
  await client.keptEvaluationPage.upsert({ where: { evaluationId }, create: { evaluationId, ...data }, update: data });
}
