import { gzipSync } from "node:zlib";
import { boardVersion } from "@/lib/board/board-version";
import { db } from "@/lib/db/client";
import type { PrismaClient } from "@/lib/db/generated/client";
import { isTerminal } from "@/lib/evaluations/status-machine";
import type { KeptPage } from "./kept-page";
import { evaluationPageVersion } from "./page-version";
import type { RenderedPage } from "./rendered-pages";

const headerPairs = (value: unknown): [string, string][] =>
  Array.isArray(value)
    ? value.filter(
        (pair): pair is [string, string] =>
          Array.isArray(pair) && pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string",
      )
    : [];

/** A final evaluation's page as kept at `version`, or null when none is kept at that version. */
export async function readKeptPage(
  evaluationId: string,
  version: string,
  client: PrismaClient = db(),
): Promise<KeptPage | null> {
  const row = await client.keptEvaluationPage.findUnique({
    where: { evaluationId },
    select: { version: true, headers: true, body: true },
  });
  if (!row || row.version !== version) return null;
  return { headers: headerPairs(row.headers), gzipped: row.body };
}

/**
 * An evaluation page's version now (`evaluationPageVersion`: null when the evaluation is not final or not there) and
 * the page kept at it: a first read's question. The row, its submission's split and the kept page come in one join;
 * a test result's version also reads the boards' (`boardVersion`, shared by the readers asking at once). Through
 * Prisma the row and the kept page took two queries, about 2 ms of the web process's CPU against 0.5.
 */
export async function readKeptPageNow(
  evaluationId: string,
  client: PrismaClient = db(),
): Promise<{ version: string | null; page: KeptPage | null }> {
  const [row] = await client.$queryRaw<
    {
      status: string;
      updatedAt: Date;
      split: string;
      version: string | null;
      headers: unknown;
      body: Uint8Array | null;
    }[]
  >`
    SELECT e.status::text AS status, e."updatedAt", s.split::text AS split, k.version, k.headers, k.body
    FROM "Evaluation" e
    JOIN "Submission" s ON s.id = e."submissionId"
    LEFT JOIN "KeptEvaluationPage" k ON k."evaluationId" = e.id
    WHERE e.id = ${evaluationId}`;
  if (!row || !isTerminal(row.status)) return { version: null, page: null };
  const version = evaluationPageVersion(row, row.split === "test" ? await boardVersion(client) : "");
  const page = row.version === version && row.body ? { headers: headerPairs(row.headers), gzipped: row.body } : null;
  return { version, page };
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
