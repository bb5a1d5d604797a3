import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { resetDbForTests } from "../../db/client";
import { issueToken } from "../../tokens/issue-token";
import { type DrillRow, formatTable } from "./drill-table";
import { closeDrillDatabase, DRILLS } from "./drills";
import { startThrowawayArena, type ThrowawayArena } from "./throwaway-arena";

const ids = DRILLS.map((d) => d.id);
const usage = `usage: npm run drills [-- --only <ids>] [-- --next] [-- --sim-speed N] [-- --keep]
  runs each fault against a throwaway arena (embedded PostgreSQL, a private redis-server, the web process and the
  worker under the arena's supervision) and prints what happened: evaluations affected, stuck, lost, double-charged,
  restarted from zero, and what the API answered during the fault.
  drills: ${ids.join(", ")}
  --next       serve the web app with \`next start\` (needs a \`next build\`); default: its route handlers, no build
  --sim-speed  the simulated engine's speed-up (default 4)
  --keep       keep the arena's folder (its logs and data) afterwards`;

const argsSchema = z.object({
  only: z
    .string()
    .transform((value) => value.split(",").map((s) => s.trim()))
    .pipe(z.array(z.enum(ids as [string, ...string[]], { message: `drills are ${ids.join(", ")}` })))
    .optional(),
  next: z.boolean().default(false),
  keep: z.boolean().default(false),
  help: z.boolean().default(false),
  "sim-speed": z.coerce.number().positive().default(4),
  "timeout-minutes": z.coerce.number().positive().default(15),
});

const log = (line: string) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`);

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      only: { type: "string" },
      next: { type: "boolean" },
      keep: { type: "boolean" },
      help: { type: "boolean" },
      "sim-speed": { type: "string" },
      "timeout-minutes": { type: "string" },
    },
  });
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) throw new Error(`${parsed.error.issues.map((i) => i.message).join("; ")}\n${usage}`);
  const args = parsed.data;
  if (args.help) {
    console.log(usage);
    return 0;
  }
  const dir = await mkdtemp(path.join(tmpdir(), "arena-drills-"));
  log(`a throwaway arena in ${dir}`);
  let arena: ThrowawayArena | undefined;
  const rows: DrillRow[] = [];
  try {
    arena = await startThrowawayArena({ dir, next: args.next, simSpeed: args["sim-speed"], log });
    // this process's own calls (the drill's token) go to the throwaway arena
    Object.assign(process.env, {
      DATABASE_URL: arena.databaseUrl,
      REDIS_URL: arena.redisUrl,
      QUEUE_PREFIX: arena.queuePrefix,
    });
    const { token } = await issueToken({ accountName: "drills" });
    await resetDbForTests();
    const context = { arena, token, log, evaluationTimeoutMs: args["timeout-minutes"] * 60_000 };
    for (const drill of DRILLS.filter((d) => !args.only || args.only.includes(d.id))) {
      log(`== ${drill.fault} ==`);
      const started = Date.now();
      try {
        rows.push(await drill.run(context));
      } catch (error) {
        rows.push({ fault: drill.fault, evaluations: [], answers: [], note: (error as Error).message });
      }
      log(`-- done in ${Math.round((Date.now() - started) / 1000)} s`);
    }
  } finally {
    await closeDrillDatabase();
    await arena?.stop().catch((error: unknown) => log(`stopping the arena: ${(error as Error).message}`));
    if (!args.keep) await rm(dir, { recursive: true, force: true });
  }
  console.log(`\n${formatTable(rows)}`);
  return rows.every((row) => !row.note) ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`drills: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
