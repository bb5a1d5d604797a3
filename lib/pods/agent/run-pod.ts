import { chmod, chown, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import {
  type CheckMeasurements,
  drawAcrossGroups,
  judgeEvaluation,
  type ResultRecord,
  scoreFixedTexts,
  scoreSampledReplies,
  sendGreedyProbes,
  unansweredNote,
} from "../../gates";
import {
  createJudgeAgent,
  DEV_POOL_PATH,
  fixedTexts,
  greedyProbes,
  loadPool,
  type Pool,
  planEvaluation,
  runWorkload,
} from "../../judge";
import { allowedMemoryMib, currentProtocol, getProfile, getTask, WORKLOAD_IDS, type WorkloadId } from "../../protocol";
import { withTurnCache } from "../../tokenizer/segment-encoder";
import { type ContainerEngines, openContainerEngines } from "../engine-container/container-engines";
import { type DeviceProbe, detectDeviceProbe, nvidiaSmiProbe, simulatedDeviceProbe } from "./device-probe";
import { engineLogin } from "./engine-login";
import { type RunningEngine, startEngine, stopEngine, waitHealthy } from "./engine-process";
import { type EngineIdentity, engineIdentity, withPodSandbox } from "./engine-user";
import type { AgentEnv } from "./env";
import type { AgentEvent } from "./events";
import { freePort } from "./free-port";
import {
  acceptanceOf,
  cacheHitOf,
  latencyOf,
  lengthsOf,
  repliesByWorkload,
  stockPassWithoutSpeed,
  type TimedResults,
} from "./measure";
import { startWindowedSampler, type WindowedSampler } from "./memory-sampler";
import { installPlugin } from "./plugin-install";
import { engineStartSpec } from "./start-spec";
import { targetTokensLoader, UnusableTokenizer } from "./target-tokens";
import { waitDeviceIdle } from "./wait-device-idle";

/** The simulated device stands for a B200 as nvidia-smi reports it. */
const SIMULATED_DEVICE_MIB = 183_359;

type Emit = (event: AgentEvent) => void;
type Role = "candidate" | "stock";

/** Ends the pod's work early with an outcome: a failed candidate (charged) or a void evaluation (refunded). */
class PodOutcome extends Error {
  constructor(
    readonly outcome: "scored" | "failed" | "void",
    reason: string,
    readonly logTail?: string,
  ) {
    super(reason);
  }
}

/**
 * Everything that happens inside one evaluation's pod: the candidate's timed passes, the stock engine's
 * on the same sessions after the device is idle again, both engines restarted for the checks, the gates,
 * and the score. Every figure is measured from outside the engines.
 */
export async function runPod(env: AgentEnv, emit: Emit, signal: AbortSignal): Promise<void> {
  if (!env.ARENA_ENGINE_CONTAINER) return runPodWith(env, emit, signal, null);
  // a Kubernetes pod: engines start in the pod's engine container, whose launcher ends with this connection
  const container = await openContainerEngines(env.ARENA_ENGINE_CONTAINER, emit);
  if (!container) return;
  try {
    await runPodWith(env, emit, signal, container);
  } finally {
    container.close();
  }
}

async function runPodWith(
  env: AgentEnv,
  emit: Emit,
  signal: AbortSignal,
  container: ContainerEngines | null,
): Promise<void> {
  const protocol = currentProtocol();
  const task = getTask(env.ARENA_TASK);
  const found = getProfile(env.ARENA_PROFILE);
  if (!found) throw new Error(`unknown profile ${env.ARENA_PROFILE}`);
  const profile = found;
  const pool: Pool = loadPool(env.ARENA_POOL_PATH ?? DEV_POOL_PATH);
  // Every token is counted, and every check rendered, with the target's own tokenizer (TOKENIZER is the target's
  // directory); a target without it cannot be judged: the arena's fault, before any engine starts. Its files are
  // checked here; loading it (seconds of the pod's time) waits for the candidate engine's process, whose start it
  // overlaps (target-tokens.ts).
  const tokens = targetTokensLoader(env.ARENA_TARGET_DIR, emit);
  const missing = tokens.check();
  if (missing) return tokens.voidPod(missing);
  await mkdir(env.ARENA_SCRATCH_DIR, { recursive: true });
  const mustReach = [
    join(env.ARENA_ENGINE_DIR, "launch.sh"),
    join(env.ARENA_STOCK_ENGINE_DIR, "launch.sh"),
    env.ARENA_TARGET_DIR,
    env.ARENA_SPECULATOR_DIR,
    env.ARENA_SCRATCH_DIR,
    ...(env.ARENA_SIM_ENGINE ? [env.ARENA_SIM_ENGINE] : []),
  ];
  const bareIdentity: EngineIdentity = await engineIdentity(
    process.getuid?.() === 0,
    env.ARENA_ENGINE_USER,
    mustReach,
    (why) => emit({ type: "log", level: "warn", message: why }),
  );
  // the local backend's sandbox (its engine cgroup, the pod's own tmpfs, the operators' log) goes with every start
  const identity = withPodSandbox(env.ARENA_SANDBOX, bareIdentity);

  // The simulated engine writes its device's memory here, so the engine's user must own the folder.
  const deviceDir = join(env.ARENA_SCRATCH_DIR, "device");
  await mkdir(deviceDir, { recursive: true });
  if (identity.uid !== null) await chown(deviceDir, identity.uid, identity.gid!);
  const deviceFile = container ? container.deviceFile : join(deviceDir, "simulated-device.csv");
  // The stock engine's SPECULATOR: a directory that exists, empty, which no engine may write (protocol section 3).
  const noSpeculatorDir = container ? container.noSpeculatorDir : join(env.ARENA_SCRATCH_DIR, "no-speculator");
  if (!container) {
    await rm(noSpeculatorDir, { recursive: true, force: true });
    await mkdir(noSpeculatorDir);
    await chmod(noSpeculatorDir, 0o555);
  }
  const probeKind = env.ARENA_DEVICE_PROBE ?? (env.ARENA_ENGINE_RUNTIME === "sim" ? "simulated" : "auto");
  const device: { probe: DeviceProbe; kind: string } = container
    ? await container.device(probeKind, SIMULATED_DEVICE_MIB)
    : probeKind === "simulated"
      ? { probe: simulatedDeviceProbe(deviceFile, SIMULATED_DEVICE_MIB), kind: "simulated" }
      : probeKind === "nvidia"
        ? { probe: nvidiaSmiProbe, kind: "nvidia" }
        : await detectDeviceProbe(deviceFile, SIMULATED_DEVICE_MIB);
  const stopGraceMs =
    Math.min(env.ARENA_STOP_GRACE_SECONDS ?? protocol.engine.stopGraceSeconds, protocol.engine.stopGraceSeconds) * 1000;
  const simulated: Record<string, string> =
    env.ARENA_ENGINE_RUNTIME === "sim"
      ? {
          ARENA_SIM_ENGINE: env.ARENA_SIM_ENGINE ?? "",
          SIM_DEVICE_FILE: deviceFile,
          ...(env.SIM_SPEED ? { SIM_SPEED: env.SIM_SPEED } : {}),
        }
      : {};
  const running = new Set<{ engine: RunningEngine; scratch: string }>();
  signal.addEventListener("abort", () => {
    for (const r of running)
      void (container ? container.stop(r.engine, 5_000) : stopEngine(r.engine, identity, 5_000, r.scratch));
  });

  const startupLog: string[] = [];
  let starts = 0;
  async function start(role: Role, utilization: number): Promise<RunningEngine> {
    starts += 1;
    const port = await freePort();
    emit({ type: "engine", engine: role, state: "starting" });
    const spec = engineStartSpec({
      role,
      start: starts,
      gpuMemoryUtilization: utilization,
      port,
      taskId: env.ARENA_TASK,
      profile: profile.name,
      scratchRoot: container ? container.scratchRoot : env.ARENA_SCRATCH_DIR,
      engineDir: env.ARENA_ENGINE_DIR,
      stockEngineDir: env.ARENA_STOCK_ENGINE_DIR,
      targetDir: env.ARENA_TARGET_DIR,
      speculatorDir: env.ARENA_SPECULATOR_DIR,
      noSpeculatorDir,
      login: container ? container.login : engineLogin(identity),
      image: { PATH: env.PATH, LD_LIBRARY_PATH: env.LD_LIBRARY_PATH },
      simulated,
    });
    const scratch = spec.scratchDir;
    const environment = spec.env;
    if (role === "candidate") {
      // plugin/ lands in this start's HOME, which is removed when the engine stops: it is installed every start
      const plugin = await (container ? container.installPlugin.bind(container) : installPlugin)({
        runtime: env.ARENA_ENGINE_RUNTIME,
        engineDir: env.ARENA_ENGINE_DIR,
        scratchDir: scratch,
        env: environment,
        identity,
      });
      if (plugin.status === "installed")
        emit({ type: "log", level: "info", message: `plugin/ installed: ${plugin.summary}` });
      if (plugin.status === "failed" || plugin.status === "unavailable") {
        const why = `plugin/ did not install: ${plugin.why}`;
        emit({ type: "log", level: "error", message: `the candidate's ${why}` });
        emit({ type: "engine", engine: role, state: "start-failed", detail: why });
        await rm(scratch, { recursive: true, force: true });
        throw plugin.status === "failed"
          ? new PodOutcome("failed", `the candidate's ${why}`, plugin.log.join("\n"))
          : new PodOutcome("void", `the candidate's plugin/ could not be installed: ${plugin.why}`);
      }
    }
    const engine = await (container ? container.start.bind(container) : startEngine)({
      role,
      name: spec.name,
      engineDir: spec.engineDir,
      scratchDir: scratch,
      identity,
      env: environment,
    });
    const entry = { engine, scratch };
    running.add(entry);
    // the pod is ending (stopped, or at its deadline): an engine started meanwhile is stopped, not left behind
    if (signal.aborted) {
      await stop(entry);
      throw new Error("the pod is ending");
    }
    // the engine starts in its own process: the target's tokenizer loads meanwhile (once)
    if (role === "candidate") void tokens.load();
    const healthy = await waitHealthy(engine, profile.healthTimeoutSeconds * 1000);
    if (role === "candidate") startupLog.push(...engine.log);
    if (!healthy.ok) {
      emit({ type: "engine", engine: role, state: "start-failed", detail: healthy.why });
      const tail = engine.logTail();
      await stop(entry);
      throw role === "candidate"
        ? new PodOutcome("scored", `the candidate engine did not start: ${healthy.why}`, tail)
        : new PodOutcome("void", `the stock engine did not start: ${healthy.why}`, tail);
    }
    emit({ type: "engine", engine: role, state: "healthy" });
    void engine.exited.then((e) => {
      if (running.has(entry))
        emit({ type: "engine", engine: role, state: "died", detail: `exit ${e.code ?? e.signal}` });
    });
    return engine;
  }
  async function stop(entry: { engine: RunningEngine; scratch: string }) {
    running.delete(entry);
    emit({ type: "engine", engine: entry.engine.role, state: "stopping" });
    if (container) await container.stop(entry.engine, stopGraceMs);
    else await stopEngine(entry.engine, identity, stopGraceMs, entry.scratch);
    emit({ type: "engine", engine: entry.engine.role, state: "stopped" });
  }
  const stopRole = async (engine: RunningEngine) => {
    for (const entry of running) if (entry.engine === engine) await stop(entry);
  };
  const dead = (engine: RunningEngine) => engine.hasExited();

  const seed = env.ARENA_SEED;
  const plan = planEvaluation(pool, { seed, task, profile });
  const dispatcher = createJudgeAgent();
  const model = task.target.repository;

  async function timed(role: Role, memory: WindowedSampler): Promise<TimedResults> {
    emit({ type: "phase", phase: `${role}-timed`, engine: role });
    const engine = await start(role, protocol.engine.gpuMemoryUtilization);
    const { counter } = await tokens.ready();
    const results = {} as TimedResults;
    for (const workload of WORKLOAD_IDS) {
      results[workload] = await runWorkload({
        url: engine.url,
        servedName: model,
        task: env.ARENA_TASK,
        workload,
        profile,
        pool,
        evaluationSeed: seed,
        plan,
        dispatcher,
        counter,
        onEvent: (event) => {
          memory.follow(event);
          relayJudgeEvent(emit, role, workload, event);
        },
      });
      if (dead(engine)) {
        const tail = engine.logTail();
        await stopRole(engine);
        if (role === "candidate") throw new PodOutcome("scored", `the candidate engine died during ${workload}`, tail);
        throw new PodOutcome("void", `the stock engine died during ${workload}`, tail);
      }
    }
    await stopRole(engine);
    return results;
  }

  try {
    // Each engine's device memory, sampled from outside while its timed passes run (protocol section 7); the
    // candidate's start-up too, kept apart and never gated.
    const sampleMemory = (role: Role) => {
      let lastEvent = 0;
      return startWindowedSampler(device.probe, protocol.engine.memorySampleSeconds * 1000, (m, window) => {
        if (Date.now() - lastEvent < 5000) return;
        lastEvent = Date.now();
        const limitMib = allowedMemoryMib(
          m.totalMib,
          protocol.engine.gpuMemoryUtilization,
          task.gates.memorySlackMib.value,
        );
        emit({ type: "memory", engine: role, window, usedMib: m.usedMib, totalMib: m.totalMib, limitMib });
      });
    };
    const finishSampling = async (role: Role, sampler: WindowedSampler) => {
      const read = await sampler.stop();
      // the memory gate is judged on the readings taken: say when some were lost
      if (read.failures + read.skipped > 0)
        emit({
          type: "log",
          level: "warn",
          message: `device memory (${role}): ${read.passMib.length + read.startupMib.length} readings taken, ${read.failures} failed, ${read.skipped} skipped while one was still running`,
        });
      return read;
    };

    // 1. The candidate's timed passes.
    const candidateSampler = sampleMemory("candidate");
    candidateSampler.open("startup");
    let candidate: TimedResults;
    try {
      candidate = await timed("candidate", candidateSampler);
    } finally {
      await finishSampling("candidate", candidateSampler);
    }
    const candidateMemory = candidateSampler.readings;
    const deviceTotalMib = candidateMemory.totalMib || SIMULATED_DEVICE_MIB;

    // 2. The device must come back idle before the stock engine may run.
    emit({ type: "phase", phase: "device-idle" });
    const idle = await waitDeviceIdle(
      device.probe,
      protocol.engine.deviceIdleMib,
      protocol.engine.deviceIdleTimeoutSeconds * 1000,
    );
    if (!idle)
      throw new PodOutcome(
        "void",
        `the device did not come back below ${protocol.engine.deviceIdleMib} MiB within ${protocol.engine.deviceIdleTimeoutSeconds} s`,
      );

    // 3. The stock engine plays the same passes: the same sessions, seeds and order.
    const stockSampler = sampleMemory("stock");
    let stock: TimedResults;
    try {
      stock = await timed("stock", stockSampler);
    } finally {
      await finishSampling("stock", stockSampler);
    }
    const noSpeed = stockPassWithoutSpeed(stock);
    if (noSpeed) throw new PodOutcome("void", noSpeed);

    // 4. The checks, each engine restarted with room for prompt logprobs.
    const probes = greedyProbes(pool, { seed, count: profile.greedyProbes, maxTokens: profile.greedyMaxTokens, model });
    const texts = fixedTexts(pool, { seed, count: profile.fidelityTexts });
    // each probe's body is a timed request's (timedRequestBody), only at temperature 0: the same shape, key for key
    const probePrompts = probes.map((p) => ({ messages: p.messages, tools: p.tools, seed: p.body.seed, body: p.body }));
    const checkTexts = texts.map((t) => ({ messages: t.messages, tools: t.tools, reply: t.reply }));
    const seedNumber = Number.parseInt(seed.replace(/\D/g, "").slice(0, 9) || "1", 10);
    const candidateReplies = drawAcrossGroups(repliesByWorkload(candidate), profile.likelihoodReplies, seedNumber);
    const stockReplies = drawAcrossGroups(repliesByWorkload(stock), profile.likelihoodReplies, seedNumber + 1);

    const ready = await tokens.ready();
    const { template } = ready;
    const tokenizer = withTurnCache(ready.tokenizer, template);
    emit({ type: "phase", phase: "checks-candidate", engine: "candidate" });
    const c = await start("candidate", protocol.engine.checksGpuMemoryUtilization);
    const endpointC = { baseUrl: c.url, model };
    const greedyC = await sendGreedyProbes(endpointC, probePrompts, {
      tokenizer,
      maxTokens: profile.greedyMaxTokens,
      onProgress: checkProgress(emit, "candidate", "greedy", probePrompts.length),
    });
    const fidelityC = await scoreFixedTexts(endpointC, checkTexts, {
      tokenizer,
      template,
      onProgress: checkProgress(emit, "candidate", "fidelity", checkTexts.length),
    });
    await stopRole(c);
    await waitDeviceIdle(device.probe, protocol.engine.deviceIdleMib, protocol.engine.deviceIdleTimeoutSeconds * 1000);

    emit({ type: "phase", phase: "checks-stock", engine: "stock" });
    const s = await start("stock", protocol.engine.checksGpuMemoryUtilization);
    const endpointS = { baseUrl: s.url, model };
    const greedyS = await sendGreedyProbes(endpointS, probePrompts, {
      tokenizer,
      maxTokens: profile.greedyMaxTokens,
      onProgress: checkProgress(emit, "stock", "greedy", probePrompts.length),
    });
    const fidelityS = await scoreFixedTexts(endpointS, checkTexts, {
      tokenizer,
      template,
      onProgress: checkProgress(emit, "stock", "fidelity", checkTexts.length),
    });
    const sampledC = await scoreSampledReplies(endpointS, candidateReplies, {
      tokenizer,
      template,
      onProgress: checkProgress(emit, "stock", "sampled-candidate", candidateReplies.length),
    });
    const sampledS = await scoreSampledReplies(endpointS, stockReplies, {
      tokenizer,
      template,
      onProgress: checkProgress(emit, "stock", "sampled-stock", stockReplies.length),
    });
    await stopRole(s);

    // what went unanswered, and why, for the evaluation's log: the answers rule fails on the count alone
    for (const [who, what, run] of [
      ["the candidate", "greedy probes", greedyC],
      ["the candidate", "fixed texts", fidelityC],
      ["the stock engine", "greedy probes", greedyS],
      ["the stock engine", "fixed texts", fidelityS],
      ["the stock engine", "scorings of the candidate's sampled replies", sampledC],
      ["the stock engine", "scorings of its own sampled replies", sampledS],
    ] as const) {
      const note = unansweredNote(who, what, run);
      if (note) emit({ type: "log", level: "warn", message: note });
    }

    // 5. The gates and the score.
    emit({ type: "phase", phase: "gates" });
    const checks: CheckMeasurements = {
      greedy: { candidate: greedyC.values, stock: greedyS.values },
      sampled: { candidate: sampledC.values, stock: sampledS.values },
      fidelity: { candidate: fidelityC.values, stock: fidelityS.values },
    };
    const perWorkload = <T>(f: (w: WorkloadId) => T) =>
      Object.fromEntries(WORKLOAD_IDS.map((w) => [w, f(w)])) as Record<WorkloadId, T>;
    const record: ResultRecord = judgeEvaluation({
      task: env.ARENA_TASK,
      passes: perWorkload((w) =>
        candidate[w].passes.map((cp, i) => {
          const sp = stock[w].passes[i]!;
          return {
            candidateSpeed: cp.summary.speed ?? 0,
            stockSpeed: sp.summary.speed ?? 0,
            candidateFailed: cp.summary.failed,
            stockFailed: sp.summary.failed,
            requests: sp.summary.requests,
          };
        }),
      ),
      checks,
      lengths: perWorkload((w) => ({ candidate: lengthsOf(candidate[w]), stock: lengthsOf(stock[w]) })),
      memory: {
        samplesMib: candidateMemory.passMib,
        stockSamplesMib: stockSampler.readings.passMib,
        startupSamplesMib: candidateMemory.startupMib,
        deviceTotalMib,
      },
      startupLog,
      acceptance: perWorkload((w) => acceptanceOf(candidate[w])),
      latency: perWorkload((w) => ({ candidate: latencyOf(candidate[w]), stock: latencyOf(stock[w]) })),
      cacheHits: perWorkload((w) => ({ candidate: cacheHitOf(candidate[w]), stock: cacheHitOf(stock[w]) })),
      reproducibility: {
        profile: profile.name,
        seeds: { evaluation: seed },
        engine_archive_sha256: null,
        speculator_commit: null,
        speculator_sha256: null,
        image: env.ARENA_ENGINE_RUNTIME === "sim" ? "simulated engine" : protocol.image.reference,
        device:
          device.kind === "simulated" ? `simulated B200 (${SIMULATED_DEVICE_MIB} MiB)` : `GPU (${deviceTotalMib} MiB)`,
      },
    });
    const outcome = record.void ? "void" : "scored";
    emit({
      type: "result",
      outcome,
      reason: record.void ?? record.reason,
      record: record as unknown as Record<string, unknown>,
    });
  } catch (error) {
    if (error instanceof UnusableTokenizer) return tokens.voidPod(error.cause);
    if (error instanceof PodOutcome) {
      // a target that cannot be judged voids the pod whatever its engines did: that fault is the arena's
      if (error.outcome !== "void") {
        const loaded = await tokens.load();
        if (loaded instanceof Error) return tokens.voidPod(loaded);
      }
      emit({ type: "result", outcome: error.outcome, reason: error.message, record: null, logTail: error.logTail });
      return;
    }
    throw error;
  } finally {
    for (const entry of [...running]) await stop(entry).catch(() => undefined);
    await tokens.close();
    await dispatcher.close();
  }
}

/**
 * A check's progress for the live page: "0 of n" as it starts, then at most one event a second while its requests
 * settle, and always the last one.
 */
function checkProgress(
  emit: Emit,
  engine: Role,
  check: "greedy" | "fidelity" | "sampled-candidate" | "sampled-stock",
  total: number,
): (settled: number, total: number) => void {
  let last = Date.now();
  emit({ type: "check-progress", engine, check, done: 0, total });
  return (done, of) => {
    const now = Date.now();
    if (done < of && now - last < 1000) return;
    last = now;
    emit({ type: "check-progress", engine, check, done, total: of });
  };
}

function relayJudgeEvent(
  emit: Emit,
  engine: Role,
  workload: WorkloadId,
  event: import("../../judge").JudgeEvent,
): void {
  if (event.type === "pass-started" && typeof event.pass === "number") {
    emit({ type: "pass-started", engine, workload, pass: event.pass, fixedSeconds: event.passSeconds });
  } else if (event.type === "pass-progress" && typeof event.pass === "number") {
    emit({
      type: "pass-progress",
      engine,
      workload,
      pass: event.pass,
      elapsedSeconds: event.elapsedSeconds,
      fixedSeconds: event.passSeconds,
      requestsDone: event.requestsDone,
      tokensPerSecond: event.tokensPerSecond,
    });
  } else if (event.type === "pass-ended" && typeof event.pass === "number") {
    const s = event.summary;
    emit({
      type: "pass-ended",
      engine,
      workload,
      pass: event.pass,
      speed: s.speed ?? 0,
      requests: s.requests,
      failed: s.failed,
      outputTokens: s.outputTokens,
      summary: {
        ttft_ms: s.ttftMs,
        tpot_ms: s.tpotMs,
        cache_hit: s.cacheHit,
        acceptance: s.acceptance?.meanAcceptedLength ?? null,
        lateness_ms: s.latenessMs,
      },
    });
  }
}
