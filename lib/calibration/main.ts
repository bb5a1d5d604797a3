import { writeFile } from "node:fs/promises";
import { z } from "zod";
import { currentProtocol, isTaskId, type TaskId } from "../protocol";
import type { CalibrationReport } from "../protocol/calibration-schema";
import { redTeamEnv } from "../red-team/env";
import { calibrationReportFrom } from "./build-report";
import { formatCalibration } from "./format-report";
import { appendPod, readPodsLogs, startPodsLog } from "./pods-log";
import { calibrationFile, formatReportFile } from "./report-file";
import { runCalibration } from "./run-calibration";

const USAGE = [
  "usage: npm run calibrate -- --task qwen3-8b --profile <name> --aa N [--references] [--only aa|references] [--out FILE] [--pods FILE] [--concurrency 1] [--sim-speed 1]",
  "       npm run calibrate -- --rebuild PODS_FILE[,PODS_FILE] [--out FILE]   (the report again from a run's pods logs)",
].join("\n");

const argsSchema = z
  .object({
    task: z.string().refine(isTaskId, "unknown task"),
    profile: z.string().min(1),
    aa: z.coerce.number().int().min(1).max(50),
    references: z.boolean().default(false),
    out: z.string().min(1).optional(),
    concurrency: z.coerce.number().int().min(1).max(8).default(1),
    "sim-speed": z.coerce.number().positive().default(1),
    pods: z.string().min(1).optional(),
    /** One group of the calibration's pods (A/A runs or references), with the seeds the whole run gives them. */
    only: z.enum(["aa", "references"]).optional(),
  })
  .strict()
  .refine((a) => a.only !== "references" || a.references, { message: "references needs --references", path: ["only"] });
const rebuildSchema = z.object({ rebuild: z.string().min(1), out: z.string().min(1).optional() }).strict();

function rawFlags(argv: string[]): Record<string, string | boolean> {
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
  return raw;
}

function parsed<T extends z.ZodTypeAny>(schema: T, raw: unknown): z.infer<T> {
  const result = schema.safeParse(raw);
  if (!result.success)
    throw new Error(
      `${result.error.issues.map((i) => `--${i.path.join(".") || "?"}: ${i.message}`).join("; ")}\n${USAGE}`,
    );
  return result.data;
}

const protocol = currentProtocol();
const controller = new AbortController();
process.on("SIGINT", () => controller.abort());

async function rebuild(options: z.infer<typeof rebuildSchema>): Promise<{ report: CalibrationReport; out: string }> {
  const { header, pods, lastFinishedAt, wallSeconds } = await readPodsLogs(options.rebuild.split(","));
  const report = calibrationReportFrom({
    protocol,
    task: header.task,
    profile: header.profile,
    requestedAa: header.aa,
    pods,
    simSpeed: header.sim_speed,
    concurrency: header.concurrency,
    createdAt: lastFinishedAt ?? new Date(header.started_at),
    wallSeconds,
  });
  const out = options.out ?? calibrationFile(protocol.version, header.task);
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  return { report, out };
}

async function calibrate(args: z.infer<typeof argsSchema>): Promise<{ report: CalibrationReport; out: string }> {
  const task = args.task as TaskId;
  const out = args.out ?? calibrationFile(protocol.version, task);
  console.log(
    `calibrating ${task} under ${args.profile}: ${args.only === "references" ? "" : `${args.aa} A/A evaluation(s)`}${args.references && args.only !== "aa" ? `${args.only ? "" : " and "}the simulated references` : ""}, ${args.concurrency} pod(s) at once, SIM_SPEED ${args["sim-speed"]}`,
  );
  const podsFile = args.pods;
  if (podsFile)
    await startPodsLog(podsFile, {
      kind: "speculatorarena.calibration-pods",
      task,
      profile: args.profile,
      aa: args.aa,
      sim_speed: args["sim-speed"],
      concurrency: args.concurrency,
      started_at: new Date().toISOString(),
    });
  let logged = Promise.resolve();
  const report = await runCalibration({
    task,
    profile: args.profile,
    aa: args.aa,
    references: args.references,
    protocol,
    simSpeed: args["sim-speed"],
    concurrency: args.concurrency,
    only: args.only === "references" ? "reference" : args.only,
    env: redTeamEnv(process.env),
    out,
    signal: controller.signal,
    onPod: (pod, group, done, total) => {
      if (podsFile) logged = logged.then(() => appendPod(podsFile, { group, pod }, new Date()));
      console.log(
        `[${done}/${total}] ${pod.key} (${pod.mode}, seed ${pod.seed}): ${pod.outcome}${pod.record ? `, SpecScore ${pod.record.specscore ?? "void"}, speedup ${pod.record.speedup.toFixed(4)}` : ""}${pod.reason ? ` (${pod.reason})` : ""}, ${pod.wallSeconds.toFixed(0)} s`,
      );
      for (const warning of pod.warnings ?? []) console.log(`    ${warning}`);
    },
  });
  await logged;
  return { report, out };
}

let result: { report: CalibrationReport; out: string };
try {
  const raw = rawFlags(process.argv.slice(2));
  result = "rebuild" in raw ? await rebuild(parsed(rebuildSchema, raw)) : await calibrate(parsed(argsSchema, raw));
} catch (error) {
  console.error((error as Error).message);
  process.exit(2);
}
await formatReportFile(result.out);
console.log(`\n${formatCalibration(result.report)}\n\nwritten to ${result.out}`);
