import { spawn } from "node:child_process";
import { chown, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { type ResultRecord, resultRecordSchema } from "../gates";
import { repoAgentCommand } from "../pods/agent/bundle/repo-agent";
import { parseAgentLine } from "../pods/agent/events";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "../sim-engine";
import { copyQwen3TokenizerFiles } from "../tokenizer/packaged-qwen3";
import type { RedTeamEnv } from "./env";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/**
 * The pod agent kills every process of the engine user after each engine (protocol section 4), machine-wide.
 * Run as root, two pods at once (or anyone else's pod on the machine) would kill each other's engines, so a root
 * caller runs each agent as this unprivileged user instead: its engines then run as that user and are stopped by
 * their process group alone.
 */
const UNPRIVILEGED = { uid: 65_534, gid: 65_534 };

export interface PodRunOptions {
  mode: string;
  seed: string;
  profile: string;
  task: "qwen3-8b" | "qwen35-27b";
  /** SIM_SPEED for both engines: the pace only changes how many requests a fixed-time pass holds. */
  simSpeed: number;
  env: RedTeamEnv;
  /** Stops the run (SIGTERM to the agent). */
  signal?: AbortSignal;
  /** The stock engine's directory (by default the simulated engine's `stock`): a broken one tests the arena's faults. */
  stockEngineDir?: string;
  /** How the agent is started: by default the repository's (repoAgentCommand: its fresh bundle, else its source). */
  agent?: { command: string; args: string[]; cwd: string };
}

export interface PodRun {
  mode: string;
  seed: string;
  outcome: "scored" | "failed" | "void" | "error";
  reason: string | null;
  record: ResultRecord | null;
  wallSeconds: number;
  /** The agent's last lines when it ended without a result, or the engine's log tail it reported. */
  logTail: string | null;
  /** The agent's own log events, `level: message`, in order. */
  agentLog: string[];
}

/** One evaluation pod, candidate = the simulated engine's `mode`, against the stock engine, as a separate agent. */
export async function runPodFor(options: PodRunOptions): Promise<PodRun> {
  const started = Date.now();
  const base = await mkdtemp(join(tmpdir(), `red-team-${options.mode}-`));
  const asUser = process.getuid?.() === 0 ? UNPRIVILEGED : null;
  try {
    const target = join(base, "target");
    const speculator = join(base, "speculator");
    await mkdir(target);
    await mkdir(speculator);
    await copyQwen3TokenizerFiles(target);
    if (asUser) await chown(base, asUser.uid, asUser.gid);
    const agentEnv: Record<string, string> = {
      PATH: options.env.PATH,
      HOME: asUser ? base : options.env.HOME,
      ARENA_EVALUATION_ID: `red-team-${options.mode}-${options.seed}`,
      ARENA_ATTEMPT: "1",
      ARENA_TASK: options.task,
      ARENA_PROFILE: options.profile,
      ARENA_SEED: options.seed,
      ARENA_ENGINE_DIR: join(SIM_ENGINE_DIRS, options.mode),
      ARENA_SPECULATOR_DIR: speculator,
      ARENA_TARGET_DIR: target,
      ARENA_STOCK_ENGINE_DIR: options.stockEngineDir ?? join(SIM_ENGINE_DIRS, "stock"),
      ARENA_SCRATCH_DIR: join(base, "scratch"),
      ARENA_ENGINE_RUNTIME: "sim",
      ARENA_SIM_ENGINE: SIM_ENGINE_BIN,
      SIM_SPEED: String(options.simSpeed),
      ARENA_STOP_GRACE_SECONDS: "10",
    };
    const agent = options.agent ?? { ...repoAgentCommand(), cwd: REPO_ROOT };
    const child = spawn(agent.command, agent.args, {
      cwd: agent.cwd,
      env: agentEnv as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      uid: asUser?.uid,
      gid: asUser?.gid,
    });
    const onAbort = () => child.kill("SIGTERM");
    options.signal?.addEventListener("abort", onAbort);
    const tail: string[] = [];
    const agentLog: string[] = [];
    const keep = (line: string) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
    };
    const ended: {
      result: { outcome: PodRun["outcome"]; reason: string | null; record: unknown; logTail?: string } | null;
    } = { result: null };
    createInterface({ input: child.stderr }).on("line", keep);
    createInterface({ input: child.stdout }).on("line", (line) => {
      const event = parseAgentLine(line);
      if (event?.type === "result") ended.result = event;
      else if (event?.type === "log") {
        keep(event.message);
        agentLog.push(`${event.level}: ${event.message}`);
      } else if (!event) keep(line);
    });
    const exit = await new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    options.signal?.removeEventListener("abort", onAbort);
    const wallSeconds = (Date.now() - started) / 1000;
    const got = ended.result;
    // An aborted pod stops its engines mid-check and then reports what that did to them: not a verdict.
    if (options.signal?.aborted) {
      return {
        mode: options.mode,
        seed: options.seed,
        outcome: "error",
        reason: "aborted",
        record: null,
        wallSeconds,
        logTail: null,
        agentLog,
      };
    }
    if (!got) {
      return {
        mode: options.mode,
        seed: options.seed,
        outcome: "error",
        reason: `the pod agent exited (${exit}) without a result`,
        record: null,
        wallSeconds,
        logTail: tail.join("\n"),
        agentLog,
      };
    }
    let record: ResultRecord | null = null;
    if (got.record !== null) {
      const parsed = resultRecordSchema.safeParse(got.record);
      if (!parsed.success) {
        return {
          mode: options.mode,
          seed: options.seed,
          outcome: "error",
          reason: `the pod's result record does not parse: ${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}`,
          record: null,
          wallSeconds,
          logTail: null,
          agentLog,
        };
      }
      record = parsed.data;
    }
    return {
      mode: options.mode,
      seed: options.seed,
      outcome: got.outcome,
      reason: got.reason,
      record,
      wallSeconds,
      logTail: got.logTail ?? null,
      agentLog,
    };
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}
