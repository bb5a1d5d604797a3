import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ENGINES_AS_AGENT } from "../agent/engine-user";
import type { AgentEvent } from "../agent/events";
import { parseAgentLine } from "../agent/events";
import { AsyncQueue, lineSplitter } from "../async-queue";
import { type HostSandbox, probeHostSandbox } from "../sandbox/host-sandbox";
import { describeMissing, type MissingProperty, missingProperties, type SandboxMechanism } from "../sandbox/properties";
import type { PodBackend, PodExit, PodHandle, PodInfo, PodLaunch } from "../types";
import { claimEngineUser, livePodClaims } from "./engine-user-claims";
import {
  cleanupLocalPod,
  type LocalSandboxSettings,
  type PreparedPod,
  prepareLocalPod,
  sweepStalePodCgroups,
} from "./local-sandbox";
import { processAlive } from "./process-alive";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const pidFileSchema = z.object({
  podId: z.string(),
  pid: z.number().int(),
  evaluationId: z.string(),
  attempt: z.number().int(),
  startedAt: z.string(),
  engineUser: z.string().default("arena-engine-1"),
  workDir: z.string().optional(),
  cgroups: z.array(z.string()).default([]),
});

type PidFile = z.infer<typeof pidFileSchema>;

export interface LocalBackendOptions {
  /** Where pid files, pods' work folders and the operators' engine logs live (root-only, in the data folder). */
  stateDir: string;
  /** Extra environment for the agent (the simulated engine's settings...). */
  agentEnv: Record<string, string>;
  /** How long an agent has after SIGTERM to stop its engines before it is killed. */
  stopGraceMs?: number;
  /**
   * Where pods claim engine users: shared by every worker of the host (default: DEFAULT_CLAIMS_DIR). Only a backend on
   * the default sweeps dead pods' cgroups: the live pods' claims it reads are the host's own.
   */
  claimsDir?: string;
  /**
   * The engine sandbox: "auto" builds what the host allows (everything, as root with `unshare`), "off" nothing;
   * either way the evaluation's log and result record say what is missing.
   */
  sandbox?: "auto" | "off";
  /** The engine cgroup's limits and the folders no pod may see; defaults suit tests only. */
  sandboxSettings?: Partial<LocalSandboxSettings>;
  /** A stand-in for the host's probe (tests). */
  probeHost?: () => Promise<HostSandbox>;
}

const DEFAULT_SETTINGS: LocalSandboxSettings = { limits: { memoryBytes: 8 * 2 ** 30, pids: 4096 }, hide: [] };

type Role = "candidate" | "stock";

/**
 * The embedded default's pods: each is a process tree on this host, headed by the pod agent, inside the engine
 * sandbox (lib/pods/sandbox). Pid files let a new worker find and stop the pods a dead one left behind.
 */
export class LocalPodBackend implements PodBackend {
  readonly name = "local" as const;
  private readonly stopping = new Set<string>();
  private host: Promise<HostSandbox> | undefined;

  constructor(private readonly options: LocalBackendOptions) {}

  private pidFile(podId: string): string {
    return join(this.options.stateDir, "pods", `${podId}.json`);
  }

  /** The host's sandbox, probed once per backend. */
  hostSandbox(): Promise<HostSandbox> {
    this.host ??= this.options.probeHost
      ? this.options.probeHost()
      : probeHostSandbox({ off: this.options.sandbox === "off" });
    return this.host;
  }

  async start(launch: PodLaunch): Promise<PodHandle> {
    const podId = `local-${launch.evaluationId}-${launch.attempt}`;
    await mkdir(join(this.options.stateDir, "pods"), { recursive: true, mode: 0o700 });
    const host = await this.hostSandbox();
    // claimed before its cgroup is made: a live claim naming the pod is what keeps another worker's sweep off it
    const claim = await claimEngineUser(this.options.claimsDir, podId);
    if (host.cgroups && this.options.claimsDir === undefined)
      await sweepStalePodCgroups(host.cgroups, await livePodClaims()).catch(() => undefined);
    let prepared: PreparedPod;
    try {
      prepared = await prepareLocalPod({
        podId,
        launch,
        host,
        settings: { ...DEFAULT_SETTINGS, ...this.options.sandboxSettings },
        workDir: join(this.options.stateDir, "pods", podId),
        logDir: join(this.options.stateDir, "logs", podId),
        agent: { command: process.execPath, args: ["--import", "tsx", join(REPO_ROOT, "lib/pods/agent/main.ts")] },
      });
    } catch (error) {
      await claim.release();
      throw error;
    }
    const engineUser = claim.user;
    const env: Record<string, string> = {
      PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
      ...this.options.agentEnv,
      ARENA_EVALUATION_ID: launch.evaluationId,
      ARENA_ATTEMPT: String(launch.attempt),
      ARENA_TASK: launch.taskId,
      ARENA_PROFILE: launch.profile,
      ARENA_SEED: String(launch.seed),
      ...prepared.paths,
      ARENA_DEADLINE_SECONDS: String(launch.deadlineSeconds),
      ARENA_ENGINE_USER: engineUser,
      ARENA_SANDBOX: JSON.stringify(prepared.sandbox),
    };
    const child = spawn(prepared.command, prepared.args, {
      cwd: REPO_ROOT,
      env: env as unknown as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (child.pid === undefined) await claim.release();
    else await claim.holdFor(child.pid);
    const events = new AsyncQueue<AgentEvent>();
    // never silently: what the sandbox lacks on this host opens the evaluation's log
    events.push({
      type: "log",
      level: prepared.missing.length > 0 ? "warn" : "info",
      message: describeMissing(prepared.missing),
    });
    const stderrTail: string[] = [];
    let running: Role | null = null;
    let sawResult = false;
    const out = lineSplitter((line) => {
      const event = parseAgentLine(line);
      if (!event) return;
      if (event.type === "engine") running = event.state === "stopped" ? null : event.engine;
      // the agent could not give its engines their own user (a checkout the engine user cannot read): say so too
      if (event.type === "log" && event.message.endsWith(ENGINES_AS_AGENT) && prepared.separateUser) {
        prepared.separateUser = false;
        prepared.missing = mergeMissing(prepared.missing, { "engine-user": event.message });
        events.push({ type: "log", level: "warn", message: describeMissing(prepared.missing) });
      }
      if (event.type === "result") {
        sawResult = true;
        events.push(withSandboxNote(event, prepared.missing));
      } else events.push(event);
    });
    const err = lineSplitter((line) => {
      stderrTail.push(line);
      if (stderrTail.length > 50) stderrTail.shift();
    });
    child.stdout.on("data", (c: Buffer) => out.write(c));
    child.stderr.on("data", (c: Buffer) => err.write(c));
    const stdoutEnded = new Promise<void>((r) => child.stdout.once("end", r));
    const info: PidFile = {
      podId,
      pid: child.pid ?? -1,
      evaluationId: launch.evaluationId,
      attempt: launch.attempt,
      startedAt: new Date().toISOString(),
      engineUser,
      workDir: prepared.cleanup.workDir,
      cgroups: prepared.cleanup.cgroups,
    };
    await writeFile(this.pidFile(podId), JSON.stringify(info), { mode: 0o600 });
    const deadline = setTimeout(() => void this.stop(podId), launch.deadlineSeconds * 1000);
    deadline.unref();
    const exited = new Promise<PodExit>((resolve) => {
      let ended = false;
      // a command that could not start (an error, and no exit) ends the pod as an exit would
      child.on("error", (error) => {
        stderrTail.push(`the pod could not start: ${error.message}`);
        if (child.pid === undefined) void finish(null, null);
      });
      child.on("exit", (code, signal) => void finish(code, signal));
      const finish = async (code: number | null, signal: NodeJS.Signals | null) => {
        if (ended) return;
        ended = true;
        clearTimeout(deadline);
        // the agent's last lines (its result) may still be in the pipe when its exit is seen
        await Promise.race([stdoutEnded, new Promise((r) => setTimeout(r, 2000))]);
        out.flush();
        err.flush();
        // An agent killed by a signal nobody here sent, while the candidate ran, where engines share its user: the
        // candidate's engine is the one process that could (protocol section 7: a candidate that dies scores 0).
        if (
          !sawResult &&
          signal !== null &&
          !this.stopping.has(podId) &&
          !prepared.separateUser &&
          running === "candidate"
        )
          events.push({
            type: "result",
            outcome: "scored",
            reason: `the candidate engine killed the pod agent (${signal}), which shares its user on this host`,
            record: null,
          });
        events.end();
        await this.cleanup(info);
        await claim.release();
        if (code === 0) resolve({ kind: "completed" });
        else if (this.stopping.has(podId))
          resolve({ kind: "failed", reason: "pod-lost", message: "the pod was stopped" });
        else
          resolve({
            kind: "failed",
            reason: "agent-crashed",
            message: `the pod agent exited with ${code ?? signal}: ${stderrTail.slice(-5).join(" | ")}`,
          });
      };
    });
    return { podId, events, exited };
  }

  /** What a pod leaves on the host once it has ended: its pid file, cgroup, work folder; the operators' logs stay. */
  private async cleanup(info: PidFile): Promise<void> {
    await cleanupLocalPod({
      workDir: info.workDir ?? join(this.options.stateDir, "pods", info.podId),
      cgroups: info.cgroups,
    }).catch(() => undefined);
    await rm(this.pidFile(info.podId), { force: true });
  }

  async stop(podId: string): Promise<void> {
    this.stopping.add(podId);
    let info: PidFile;
    try {
      info = pidFileSchema.parse(JSON.parse(await readFile(this.pidFile(podId), "utf8")));
    } catch {
      return;
    }
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-info.pid, s);
      } catch {
        // already gone
      }
    };
    signal("SIGTERM");
    const until = Date.now() + (this.options.stopGraceMs ?? 15_000);
    while (processAlive(info.pid) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    signal("SIGKILL");
    // a pod a dead worker left behind has no exit handler here to clean up after it
    const gone = Date.now() + 5000;
    while (processAlive(info.pid) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    await this.cleanup(info);
  }

  async list(): Promise<PodInfo[]> {
    return (await this.readPidFiles()).map((info) => ({
      podId: info.podId,
      evaluationId: info.evaluationId,
      attempt: info.attempt,
      phase: processAlive(info.pid) ? "running" : "unknown",
    }));
  }

  private async readPidFiles(): Promise<PidFile[]> {
    const dir = join(this.options.stateDir, "pods");
    const names = await readdir(dir).catch(() => [] as string[]);
    const out: PidFile[] = [];
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      try {
        out.push(pidFileSchema.parse(JSON.parse(await readFile(join(dir, name), "utf8"))));
      } catch {
        // a pid file being written or removed
      }
    }
    return out;
  }
}

/** The result record says under which sandbox it was measured (its reproducibility), what it lacked included. */
function withSandboxNote(
  event: Extract<AgentEvent, { type: "result" }>,
  missing: readonly MissingProperty[],
): Extract<AgentEvent, { type: "result" }> {
  const reproducibility = event.record?.reproducibility;
  if (!event.record || typeof reproducibility !== "object" || reproducibility === null) return event;
  return {
    ...event,
    record: {
      ...event.record,
      reproducibility: {
        ...reproducibility,
        sandbox: { backend: "local", complete: missing.length === 0, missing: missing.map((m) => ({ ...m })) },
      },
    },
  };
}

/** What was missing, and what is found missing since, each property once, with its first reason. */
function mergeMissing(
  missing: readonly MissingProperty[],
  also: Partial<Record<SandboxMechanism, string>>,
): MissingProperty[] {
  const out = [...missing];
  for (const m of missingProperties(also)) if (!out.some((o) => o.property === m.property)) out.push(m);
  return out;
}
