import { z } from "zod";
import { currentProtocol, isTaskId } from "../protocol";
import { redTeamEnv } from "../red-team/env";
import { formatCalibration } from "./format-report";
import { calibrationFile, formatReportFile } from "./report-file";
import { runCalibration } from "./run-calibration";

const USAGE =
  "usage: npm run calibrate -- --task qwen3-8b --profile <name> --aa N [--references] [--out FILE] [--concurrency 1] [--sim-speed 1]";

const argsSchema = z
  .object({
    task: z.string().refine(isTaskId, "unknown task"),
    profile: z.string().min(1),
    aa: z.coerce.number().int().min(1).max(50),
    references: z.boolean().default(false),
    out: z.string().min(1).optional(),
    concurrency: z.coerce.number().int().min(1).max(8).default(1),
    "sim-speed": z.coerce.number().positive().default(1),
  })
  .strict();

function parseArgs(argv: string[]): z.infer<typeof argsSchema> {
  const raw: Record<string, string | boolean> = {};
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    if (!flag.startsWith("--")) throw new Error(`bad argument "${flag}"\n${USAGE}`);
    if (flag === "--references") {
      raw.references = true;
      continue;
    }
    const value = argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value\n${USAGE}`);
    raw[flag.slice(2)] = value;
  }
  const parsed = argsSchema.safeParse(raw);
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
const protocol = currentProtocol();
const task = args.task as "qwen3-8b" | "qwen35-27b";
const out = args.out ?? calibrationFile(protocol.version, task);
const controller = new AbortController();
process.on("SIGINT", () => controller.abort());
console.log(
  `calibrating ${task} under ${args.profile}: ${args.aa} A/A evaluation(s)${args.references ? " and the simulated references" : ""}, ${args.concurrency} pod(s) at once, SIM_SPEED ${args["sim-speed"]}`,
);
const report = await runCalibration({
  task,
  profile: args.profile,
  aa: args.aa,
  references: args.references,
  protocol,
  simSpeed: args["sim-speed"],
  concurrency: args.concurrency,
  env: redTeamEnv(process.env),
  out,
  signal: controller.signal,
  onPod: (pod, done, total) =>
    console.log(
      `[${done}/${total}] ${pod.key} (${pod.mode}, seed ${pod.seed}): ${pod.outcome}${pod.record ? `, SpecScore ${pod.record.specscore ?? "void"}, speedup ${pod.record.speedup.toFixed(4)}` : ""}${pod.reason ? ` (${pod.reason})` : ""}, ${pod.wallSeconds.toFixed(0)} s`,
    ),
});
await formatReportFile(out);
console.log(`\n${formatCalibration(report)}\n\nwritten to ${out}`);
