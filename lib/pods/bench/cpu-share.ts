/**
 * What the pods' CPU group (lib/pods/sandbox/cpu-share.ts) does for a local pod's measurement on a crowded host: one
 * whole pod of a simulated speculator against the stock engine, idle, then beside `--sessions` competing sessions
 * (busy loops, each in a session of its own, as the kernel's autogroups share CPU between sessions) with the pod in the
 * group and outside it. Prints each run's SpecScore and workload ratios: the group should keep the crowded score near
 * the idle one. Needs root (the group, the engine user); run on quiet cores.
 * Usage: npx tsx lib/pods/bench/cpu-share.ts [--sessions 8] [--runs 1] [--mode eagle] [--task qwen3-8b]
 *        [--profile ci] [--sim-speed 2]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { type ResultRecord, resultRecordSchema } from "@/lib/gates";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "@/lib/sim-engine";
import { copyQwen3TokenizerFiles } from "@/lib/tokenizer/packaged-qwen3";
import { LocalPodBackend } from "../local/local-pod-backend";

const args = z
  .object({
    sessions: z.coerce.number().int().min(1).default(8),
    runs: z.coerce.number().int().min(1).default(1),
    mode: z.string().default("eagle"),
    task: z.enum(["qwen3-8b", "qwen35-27b"]).default("qwen3-8b"),
    profile: z.string().default("ci"),
    "sim-speed": z.coerce.number().positive().default(2),
  })
  .parse(
    parseArgs({
      options: Object.fromEntries(
        ["sessions", "runs", "mode", "task", "profile", "sim-speed"].map((name) => [name, { type: "string" as const }]),
      ),
    }).values,
  );

/** Busy loops, each the leader of a session of its own (detached: setsid), so each is an autogroup of its own. */
function competingSessions(count: number): ChildProcess[] {
  return Array.from({ length: count }, () =>
    spawn("sh", ["-c", "while :; do :; done"], { detached: true, stdio: "ignore" }),
  );
}

async function onePod(
  base: string,
  run: string,
  seed: number,
  cpuGroup: boolean,
): Promise<{ record: ResultRecord; seconds: number }> {
  const inputs = join(base, run);
  await mkdir(join(inputs, "speculator"), { recursive: true });
  await mkdir(join(inputs, "target"), { recursive: true });
  await copyQwen3TokenizerFiles(join(inputs, "target"));
  const backend = new LocalPodBackend({
    stateDir: join(base, "state"),
    agentEnv: { ARENA_ENGINE_RUNTIME: "sim", ARENA_SIM_ENGINE: SIM_ENGINE_BIN, SIM_SPEED: String(args["sim-speed"]) },
    sandboxSettings: { cpuGroup },
  });
  const started = performance.now();
  const handle = await backend.start({
    evaluationId: `cpu-share-${run}`,
    attempt: 1,
    taskId: args.task,
    profile: args.profile,
    // the same sessions, seeds and order in every config of a run
    seed,
    engineDir: join(SIM_ENGINE_DIRS, args.mode),
    speculatorDir: join(inputs, "speculator"),
    targetDir: join(inputs, "target"),
    stockEngineDir: join(SIM_ENGINE_DIRS, "stock"),
    deadlineSeconds: 900,
  });
  let record: ResultRecord | null = null;
  let reason: string | null = null;
  for await (const event of handle.events) {
    if (event.type !== "result") continue;
    reason = event.reason;
    if (event.record) record = resultRecordSchema.parse(event.record);
  }
  await handle.exited;
  if (!record) throw new Error(`${run}: the pod gave no record (${reason ?? "no reason"})`);
  return { record, seconds: (performance.now() - started) / 1000 };
}

const base = await mkdtemp(join(tmpdir(), "cpu-share-bench-"));
// the engine user reaches its inputs through the pod's read-only binds
await chmod(base, 0o755);
console.log(
  `the pods' CPU group: ${args.mode} against stock on ${args.task} under ${args.profile}, SIM_SPEED ${args["sim-speed"]}, ${args.runs} run(s) each; target: the crowded score in the group near the idle one`,
);
console.log("config | competing sessions | speed-up (SpecScore before its gates) | solo | team | busy | pod wall s");
const fmt = (n: number | null | undefined) => (n === null || n === undefined ? "-" : n.toFixed(3));
try {
  const configs = [
    { name: "idle, in the group", sessions: 0, cpuGroup: true },
    { name: "crowded, outside the group", sessions: args.sessions, cpuGroup: false },
    { name: "crowded, in the group", sessions: args.sessions, cpuGroup: true },
  ];
  for (let r = 0; r < args.runs; r++)
    for (const [i, config] of configs.entries()) {
      const loops = competingSessions(config.sessions);
      try {
        const { record, seconds } = await onePod(base, `r${r}c${i}`, r + 1, config.cpuGroup);
        const ratio = (w: string) => (record.ratios as Record<string, { ratio: number } | undefined>)[w]?.ratio;
        console.log(
          [
            config.name,
            config.sessions,
            fmt(record.speedup),
            fmt(ratio("solo")),
            fmt(ratio("team")),
            fmt(ratio("busy")),
            seconds.toFixed(1),
          ].join(" | "),
        );
      } finally {
        for (const loop of loops) loop.kill("SIGKILL");
      }
    }
} finally {
  await rm(base, { recursive: true, force: true });
}
