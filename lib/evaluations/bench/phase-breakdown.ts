/**
 * Where one evaluation's pod time goes (issue 18, target 4: pod time outside the timed passes ≤ 15% under the full
 * profile).
 *
 *   npx tsx lib/evaluations/bench/phase-breakdown.ts [--profile full] [--sim-speed 1] [--engine eagle]
 *   npx tsx lib/evaluations/bench/phase-breakdown.ts --evaluation <id>
 *   npx tsx lib/evaluations/bench/phase-breakdown.ts --events <file.json>
 *
 * Without `--evaluation` it runs one whole evaluation of a simulated engine (lib/sim-engine/engines/<engine>, EAGLE-like
 * by default) through the real pipeline on a throwaway arena: a fresh migrated database and a private queue prefix on
 * the test servers (DATABASE_URL, REDIS_URL), the real worker process, the local pod backend, the pod agent. With
 * `--evaluation` it reads an evaluation already stored in DATABASE_URL's database; with `--events`, an evaluation's
 * events saved as a JSON array of `{type, data, at}` (`at` in ms since the epoch). Either way the figures come from
 * the evaluation's stored events (what its pod reported, stamped as the worker relayed them): the pod's time from the
 * move to `running` to the final status, split into engine starts, warm-ups, each timed pass's fixed seconds, graces,
 * device-idle waits, the checks per engine, engine stops, and the pod's start and end (lib/pods/agent/pod-time.ts).
 */
import { chmod, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { db } from "../../db/client";
import { packDirectory } from "../../engine-archive/pack-directory";
import { KINDS, type PodTimeBreakdown, type PodTimeKind, podTimeBreakdown } from "../../pods/agent/pod-time";
import { createSubmission } from "../../submissions/create-submission";
import { setupArenaTestContext } from "../../testing/arena-test-context";
import { simulatedWorkerEnv, spawnWorker } from "../../testing/spawn-worker";
import { issueToken } from "../../tokens/issue-token";
import { repoRoot } from "../runtime";

const storedEvents = z.array(z.object({ type: z.string(), data: z.record(z.string(), z.unknown()), at: z.number() }));

const TARGET_SHARE = 0.15;
const TERMINAL = ["scored", "failed", "void", "cancelled"];

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stamp = () => new Date().toISOString().slice(11, 19);

async function breakdownOf(evaluationId: string): Promise<{ breakdown: PodTimeBreakdown; summary: string }> {
  const evaluation = await db().evaluation.findUniqueOrThrow({
    where: { id: evaluationId },
    include: { submission: { select: { profile: true, taskId: true } } },
  });
  const rows = await db().evaluationEvent.findMany({ where: { evaluationId }, orderBy: { seq: "asc" } });
  const breakdown = podTimeBreakdown(
    rows.map((r) => ({ type: r.type, data: r.data as Record<string, unknown>, at: r.createdAt.getTime() })),
  );
  const summary = [
    `evaluation ${evaluationId}: ${evaluation.submission.taskId}, profile ${evaluation.submission.profile},`,
    `${evaluation.status}${evaluation.specscore === null ? "" : ` (SpecScore ${evaluation.specscore.toFixed(3)})`}${evaluation.reason ? ` (${evaluation.reason})` : ""},`,
    `charged GPU time ${evaluation.gpuSeconds.toFixed(1)} s (sealing the inputs included)`,
  ].join(" ");
  return { breakdown, summary };
}

const KIND_NAMES: Record<PodTimeKind, string> = {
  "pod-start": "pod start",
  "engine-start": "engine starts",
  "warm-up": "warm-ups",
  "timed-pass": "timed passes (fixed seconds)",
  grace: "graces (and the metrics read after)",
  "pass-setup": "between passes",
  "engine-stop": "engine stops",
  "device-idle": "device-idle waits",
  checks: "checks",
  "gates-and-teardown": "gates, result, pod end",
};

function print(summary: string, b: PodTimeBreakdown): void {
  const pct = (s: number) => `${((100 * s) / b.totalSeconds).toFixed(1).padStart(5)}%`;
  const row = (label: string, seconds: number) =>
    console.log(`  ${label.padEnd(46)} ${seconds.toFixed(1).padStart(8)} s ${pct(seconds)}`);
  console.log(`\n${summary}`);
  console.log(`\nthe pod's time, in order (${b.totalSeconds.toFixed(1)} s from the move to running to the end):`);
  for (const s of b.segments) row(s.label, s.seconds);
  console.log("\nby kind:");
  for (const k of KINDS) row(KIND_NAMES[k], b.byKind[k]);
  const checksBy = new Map<string, number>();
  for (const s of b.segments.filter((x) => x.kind === "checks")) {
    const engine = s.label.split(" ")[0]!;
    checksBy.set(engine, (checksBy.get(engine) ?? 0) + s.seconds);
  }
  for (const [engine, seconds] of checksBy) row(`  checks on the ${engine} engine`, seconds);
  const outside = b.totalSeconds - b.timedSeconds;
  console.log(
    `\noutside the timed passes: ${outside.toFixed(1)} s of ${b.totalSeconds.toFixed(1)} s = ${(100 * b.outsideShare).toFixed(1)}% ` +
      `(target ≤ ${100 * TARGET_SHARE}%: ${b.outsideShare <= TARGET_SHARE ? "met" : "NOT met"})`,
  );
}

async function runOne(profile: string, simSpeed: string, engine: string): Promise<void> {
  const ctx = await setupArenaTestContext();
  const dataDir = await mkdtemp(join(tmpdir(), "arena-phase-breakdown-"));
  // engines run as the unprivileged engine user, who must reach the sealed inputs
  await chmod(dataDir, 0o755);
  const worker = spawnWorker(simulatedWorkerEnv(ctx, dataDir, { SIM_SPEED: simSpeed, EVALUATION_LEASE_SECONDS: "30" }));
  try {
    const { accountId } = await issueToken({ accountName: "bench-phase-breakdown" });
    const inline = (await packDirectory(join(repoRoot(), "lib/sim-engine/engines", engine))).toString("base64");
    const created = await createSubmission(
      { accountId, kind: "participant" },
      {
        task_id: "qwen3-8b",
        split: "dev",
        engine: { inline },
        solution: { method: `simulated ${engine}`, kind: "eagle3" },
        profile,
      },
    );
    console.log(
      `${stamp()} evaluation ${created.evaluationId}: simulated engine "${engine}", profile ${profile}, SIM_SPEED ${simSpeed}`,
    );
    let seen = "";
    for (;;) {
      const e = await db().evaluation.findUniqueOrThrow({
        where: { id: created.evaluationId },
        select: { status: true, phase: true },
      });
      const now = `${e.status}${e.phase ? ` / ${e.phase}` : ""}`;
      if (now !== seen) console.log(`${stamp()} ${now}`);
      seen = now;
      if (TERMINAL.includes(e.status)) break;
      if (worker.child.exitCode !== null) throw new Error(`the worker exited: ${worker.output.slice(-20).join("\n")}`);
      await sleep(2000);
    }
    // the worker records the GPU time just before the result: wait for the row to settle
    await sleep(1000);
    const { breakdown, summary } = await breakdownOf(created.evaluationId);
    print(summary, breakdown);
  } finally {
    await worker.kill("SIGTERM");
    await ctx.teardown();
    await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

async function main(): Promise<void> {
  const saved = arg("events");
  if (saved) {
    const events = storedEvents.parse(JSON.parse(await readFile(saved, "utf8")));
    print(`the events saved in ${saved}`, podTimeBreakdown(events));
    return;
  }
  const existing = arg("evaluation");
  if (existing) {
    const { breakdown, summary } = await breakdownOf(existing);
    print(summary, breakdown);
    return;
  }
  await runOne(arg("profile") ?? "full", arg("sim-speed") ?? "1", arg("engine") ?? "eagle");
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
