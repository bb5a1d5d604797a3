import { spawn } from "node:child_process";
import { chmod, cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { allowedMemoryMib, currentProtocol } from "@/lib/protocol";
import { JUDGE_NODE_FLAGS } from "../../../judge/run/node-flags";
import { nvidiaSmiProbe } from "../device-probe";
import { parseAgentLine } from "../events";

/**
 * The memory drill on a real GPU (issue 12): the pod agent bundle plays one evaluation pod with the simulated engines
 * while the candidate's engine directory starts a process that holds real device memory, and the agent samples the
 * device with the real nvidia-smi. "honest" holds the share it is told (GPU_MEMORY_UTILIZATION, as vLLM sizes
 * itself), "hog" holds 0.97 of the device. Expected: honest passes the memory gate, hog fails it, and in both the
 * device-idle wait sees the memory freed once the candidate's process group is killed.
 *
 *   bash lib/pods/agent/bench/pack-gpu-drill.sh            # here: .device/gpu-drill.tar.xz (Node and the bundles)
 *   (GPU host) mkdir -p /tmp/gd && tar -C /tmp/gd -xJf .device/gpu-drill.tar.xz
 *              /tmp/gd/node /tmp/gd/gpu-drill.mjs --bundle /tmp/gd --repo "$PWD"
 */

interface DrillRun {
  engine: string;
  outcome: string;
  reason: string | null;
  score: number | null;
  peakMib: number | null;
  allowedMib: number | null;
  memoryOk: boolean | null;
  idleWaitSeconds: number | null;
  usedAfterMib: number | null;
  wallSeconds: number;
  log: string[];
}

const { values } = parseArgs({
  options: {
    bundle: { type: "string" },
    repo: { type: "string" },
    profile: { type: "string", default: "ci" },
    engines: { type: "string", default: "honest,hog" },
  },
});
if (!values.bundle || !values.repo) {
  console.error("usage: gpu-drill.mjs --bundle DIR --repo DIR [--profile ci] [--engines honest,hog]");
  process.exit(2);
}
const bundle = resolve(values.bundle);
const repo = resolve(values.repo);
const enginesDir = join(repo, "lib/pods/agent/bench/gpu-drill/engines");

async function runDrill(engine: string): Promise<DrillRun> {
  const started = Date.now();
  const base = await mkdtemp(join(tmpdir(), `gpu-drill-${engine}-`));
  await chmod(base, 0o755);
  const target = join(base, "target");
  await cp(join(bundle, "qwen3-tokenizer"), target, { recursive: true });
  await mkdir(join(base, "speculator"));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    ...(process.env.LD_LIBRARY_PATH ? { LD_LIBRARY_PATH: process.env.LD_LIBRARY_PATH } : {}),
    HOME: base,
    ARENA_EVALUATION_ID: `gpu-drill-${engine}`,
    ARENA_ATTEMPT: "1",
    ARENA_TASK: "qwen3-8b",
    ARENA_PROFILE: values.profile!,
    ARENA_SEED: "gpu-drill",
    ARENA_ENGINE_DIR: join(enginesDir, engine),
    ARENA_SPECULATOR_DIR: join(base, "speculator"),
    ARENA_TARGET_DIR: target,
    ARENA_STOCK_ENGINE_DIR: join(repo, "lib/sim-engine/engines/stock"),
    ARENA_SCRATCH_DIR: join(base, "scratch"),
    ARENA_ENGINE_RUNTIME: "sim",
    ARENA_DEVICE_PROBE: "nvidia",
    ARENA_SIM_ENGINE: join(bundle, "sim-engine", "sim-engine"),
    ARENA_STOP_GRACE_SECONDS: "10",
  };
  const child = spawn(join(bundle, "node"), [...JUDGE_NODE_FLAGS, join(bundle, "pod-agent.mjs")], {
    cwd: base,
    env: env as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const phases = new Map<string, number>();
  const log: string[] = [];
  let result: { outcome: string; reason: string | null; record: Record<string, unknown> | null } | null = null;
  createInterface({ input: child.stderr }).on("line", (l) => log.push(l));
  createInterface({ input: child.stdout }).on("line", (line) => {
    const event = parseAgentLine(line);
    if (!event) return;
    if (event.type === "phase") phases.set(event.phase, Date.now());
    else if (event.type === "log") log.push(`${event.level}: ${event.message}`);
    else if (event.type === "engine" && event.detail)
      log.push(`engine ${event.engine} ${event.state}: ${event.detail}`);
    else if (event.type === "result") result = event;
  });
  await new Promise((r) => child.on("close", r));
  const memory = (
    result as { record: { memory?: { peak_mib: number; allowed_mib: number; ok: boolean } } | null } | null
  )?.record?.memory;
  const idleFrom = phases.get("device-idle");
  const idleTo = phases.get("stock-timed");
  const after = await nvidiaSmiProbe().catch(() => null);
  await rm(base, { recursive: true, force: true });
  const got = result as { outcome: string; reason: string | null } | null;
  return {
    engine,
    outcome: got?.outcome ?? "no result",
    reason: got?.reason ?? null,
    score: (result as { record: { score?: number | null } | null } | null)?.record?.score ?? null,
    peakMib: memory?.peak_mib ?? null,
    allowedMib: memory?.allowed_mib ?? null,
    memoryOk: memory?.ok ?? null,
    idleWaitSeconds: idleFrom && idleTo ? (idleTo - idleFrom) / 1000 : null,
    usedAfterMib: after?.usedMib ?? null,
    wallSeconds: (Date.now() - started) / 1000,
    log,
  };
}

const device = await nvidiaSmiProbe();
const protocol = currentProtocol();
const allowed = allowedMemoryMib(
  device.totalMib,
  protocol.engine.gpuMemoryUtilization,
  protocol.tasks["qwen3-8b"].gates.memorySlackMib.value,
);
console.log(
  `device: ${device.totalMib} MiB, ${device.usedMib} MiB in use before; allowed ${allowed.toFixed(0)} MiB (` +
    `${protocol.engine.gpuMemoryUtilization} of the device + ${protocol.tasks["qwen3-8b"].gates.memorySlackMib.value} MiB); ` +
    `idle below ${protocol.engine.deviceIdleMib} MiB within ${protocol.engine.deviceIdleTimeoutSeconds} s`,
);
const expected: Record<string, boolean> = { honest: true, hog: false };
let failures = 0;
for (const engine of values.engines!.split(",")) {
  const run = await runDrill(engine);
  const wantOk = expected[engine];
  // both are measurements (protocol section 5): the hog scores 0 for its memory, the honest engine above 0
  const asExpected =
    run.outcome === "scored" &&
    run.memoryOk === wantOk &&
    run.idleWaitSeconds !== null &&
    (wantOk ? (run.score ?? 0) > 0 : run.score === 0);
  if (!asExpected) failures += 1;
  console.log(
    [
      `${engine}: ${run.outcome}, SpecScore ${run.score?.toFixed(3) ?? "none"}${run.reason ? ` (${run.reason})` : ""}`,
      `  memory gate: peak ${run.peakMib} MiB of ${run.allowedMib?.toFixed(0)} allowed -> ${run.memoryOk ? "pass" : "FAIL"} (expected ${wantOk ? "pass" : "FAIL"})`,
      `  device-idle wait after the candidate's kill: ${run.idleWaitSeconds?.toFixed(2) ?? "never reached"} s; in use after the pod: ${run.usedAfterMib} MiB`,
      `  wall ${run.wallSeconds.toFixed(0)} s: ${asExpected ? "as expected" : "NOT AS EXPECTED"}`,
      ...(asExpected ? [] : run.log.slice(-30).map((l) => `    | ${l}`)),
    ].join("\n"),
  );
}
process.exit(failures === 0 ? 0 : 1);
