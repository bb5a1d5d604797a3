/**
 * `npx tsx lib/board/bench/seed-scale.ts [--evaluations 10000] [--accounts 1000] [--seed 1]`: fills DATABASE_URL's
 * database, which must be migrated and hold no evaluation yet, with an arena at scale (scale-fixture.ts) for the
 * board's benchmark (board-bench.ts). Never point it at a live arena: it refuses a database with evaluations.
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { createPrismaClient } from "@/lib/db/client";
import { seedDatabase } from "@/lib/db/seed";
import { env } from "@/lib/env";
import { redactUrl } from "@/lib/ops/redact-url";
import { seedScale } from "./scale-fixture";

const args = z
  .object({
    evaluations: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    accounts: z.coerce.number().int().min(3).max(100_000).default(1_000),
    seed: z.coerce.number().int().default(1),
  })
  .parse(
    parseArgs({
      options: { evaluations: { type: "string" }, accounts: { type: "string" }, seed: { type: "string" } },
    }).values,
  );

const { DATABASE_URL, ADMIN_EMAIL } = env();
const prisma = createPrismaClient(DATABASE_URL);
try {
  const held = await prisma.evaluation.count();
  if (held > 0) {
    throw new Error(
      `${redactUrl(DATABASE_URL)} already holds ${held} evaluations: seed an empty, migrated database of its own`,
    );
  }
  await seedDatabase(prisma, { adminEmail: ADMIN_EMAIL });
  const started = performance.now();
  const counts = await seedScale(prisma, args);
  console.log(
    `seeded ${counts.accounts} accounts, ${counts.evaluations} evaluations (${Object.entries(counts.byStatus)
      .map(([s, n]) => `${n} ${s}`)
      .join(
        ", ",
      )}), ${counts.passes} passes, ${counts.gates} gate rows in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
} finally {
  await prisma.$disconnect();
}
