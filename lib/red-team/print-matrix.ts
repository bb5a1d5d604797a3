import { z } from "zod";
import { redTeamEnv } from "./env";
import { formatChance, formatMatrix } from "./format-matrix";
import { MATRIX_MODES } from "./modes";
import { defaultSeeds, runMatrix } from "./run-matrix";

const USAGE =
  "usage: npx tsx lib/red-team/print-matrix.ts [--profile redteam] [--seeds 3] [--modes a,b] [--concurrency 2] [--sim-speed 20] [--skip-seeds 0] [--json FILE]";

const argsSchema = z.object({
  profile: z.string().min(1).default("redteam"),
  seeds: z.coerce.number().int().min(1).max(50).default(1),
  modes: z
    .string()
    .transform((s) => s.split(",").filter(Boolean))
    .optional(),
  concurrency: z.coerce.number().int().min(1).max(8).default(2),
  "sim-speed": z.coerce.number().positive().default(20),
  /** Starts at this index of the default seed list (to extend an earlier run with new seeds). */
  "skip-seeds": z.coerce.number().int().min(0).default(0),
  json: z.string().min(1).optional(),
});

function parseArgs(argv: string[]): z.infer<typeof argsSchema> {
  const raw: Record<string, string> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i]!;
    const value = argv[i + 1];
    if (!flag.startsWith("--") || value === undefined) throw new Error(`bad argument "${flag}"\n${USAGE}`);
    raw[flag.slice(2)] = value;
  }
  const parsed = argsSchema.strict().safeParse(raw);
  if (!parsed.success)
    throw new Error(
      `${parsed.error.issues.map((i) => `--${i.path.join(".") || "?"}: ${i.message}`).join("; ")}\n${USAGE}`,
    );
  return parsed.data;
}

let args: z.infer<typeof argsSchema>;
try {
  args = parseArgs(process.argv.slice(2));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
const controller = new AbortController();
process.on("SIGINT", () => controller.abort());
const started = Date.now();
const modes = args.modes ?? MATRIX_MODES.map((m) => m.mode);
console.log(
  `red-team matrix: ${modes.length} modes × ${args.seeds} seed(s), profile ${args.profile}, ${args.concurrency} pods at once`,
);
const result = await runMatrix({
  modes,
  profile: args.profile,
  seeds: defaultSeeds(args["skip-seeds"] + args.seeds).slice(args["skip-seeds"]),
  concurrency: args.concurrency,
  simSpeed: args["sim-speed"],
  env: redTeamEnv(process.env),
  signal: controller.signal,
  onRun: (run, done, total) =>
    console.log(
      `  [${done}/${total}] ${run.mode} seed ${run.seed}: ${run.outcome}${run.reason ? ` (${run.reason})` : ""} in ${run.wallSeconds.toFixed(0)} s; ${(
        run.record?.gates ?? []
      )
        .map((g) => `${g.key} ${g.measured} ${g.pass ? "✓" : "✗"}`)
        .join("; ")}`,
    ),
});
console.log(`\n${formatMatrix(result)}\n\n${formatChance(result)}`);
const unexpected = result.verdicts.filter((v) => !v.asExpected);
console.log(
  `\n${result.verdicts.length - unexpected.length} of ${result.verdicts.length} runs as the protocol expects; wall time ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
if (args.json) {
  const { writeFile } = await import("node:fs/promises");
  await writeFile(args.json, JSON.stringify(result, null, 2));
}
process.exit(unexpected.length === 0 ? 0 : 1);
