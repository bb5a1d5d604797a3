import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, open, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { logger } from "../../logger";
import { repoAgentCommand } from "../agent/bundle/repo-agent";
import { ENGINES_AS_AGENT } from "../agent/engine-user";
import { type AgentEvent, type AgentExit, parseAgentExit, parsePodLine } from "../agent/events";
import { AsyncQueue } from "../async-queue";
import { type HostSandbox, probeHostSandbox } from "../sandbox/host-sandbox";
import {
  describeMissing,
  type MissingProperty,
  missingProperties,
  SANDBOX_PROPERTY_IDS,
  type SandboxMechanism,
} from "../sandbox/properties";
import type { PodBackend, PodEvent, PodExit, PodHandle, PodInfo, PodLaunch } from "../types";
import { claimEngineUser, livePodClaims, releasePodClaim } from "./engine-user-claims";
import { followFile } from "./follow-file";
import {
  cleanupLocalPod,
  type LocalSandboxSettings,
  type PreparedPod,
  prepareLocalPod,
  sweepStalePodCgroups,
} from "./local-sandbox";
import { processStartTicks, sameProcessAlive } from "./process-alive";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * What a pod's worker writes beside it (`<state>/pods/<pod>.json`, root-only), so that any worker of the host can
 * re-attach to it, stop it, and clean up after it: the pod outlives the worker that started it.
 */
const pidFileSchema = z.object({
  podId: z.string(),
  pid: z.number().int(),
  /** The agent's start in clock ticks after boot (process-alive.ts): a reused pid is not the pod's. */
  startTicks: z.number().int().optional(),
  evaluationId: z.string(),
  attempt: z.number().int(),
  startedAt: z.string(),
  engineUser: z.string().default("arena-engine-1"),
  workDir: z.string().optional(),
  cgroups: z.array(z.string()).default([]),
  /** Past this the agent has ended the pod itself; a worker stops what is still running a little later. */
  deadlineAt: z.string().optional(),
  /** The agent's numbered events, in the pod's root-only work folder. */
  eventsFile: z.string().optional(),
  /** The agent's own standard output and error, for the operators. */
  agentLog: z.string().optional(),
  missing: z.array(z.object({ property: z.enum(SANDBOX_PROPERTY_IDS), why: z.string() })).default([]),
  separateUser: z.boolean().default(true),
});

type PidFile = z.infer<typeof pidFileSchema>;

const podAlive = (info: PidFile) => sameProcessAlive(info.pid, info.startTicks);

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
  /** How often a pod's event file and (for a pod this worker did not start) its process are looked at. */
  pollMs?: number;
}

const DEFAULT_SETTINGS: LocalSandboxSettings = { limits: { memoryBytes: 8 * 2 ** 30, pids: 4096 }, hide: [] };
/** The agent ends its pod at the deadline; a worker stops one still running this much later. */
const DEADLINE_BACKSTOP_MS = 30_000;

type Role = "candidate" | "stock";

/** How the pod's process ended, as far as its follower could see. */
interface ProcessEnd {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the command could not be started at all. */
  startError?: string;
}

/** What only the worker that spawned the pod has: the child process and the engine user's claim. */
interface OwnPod {
  child: ChildProcess;
  releaseClaim: () => Promise<void>;
}

/**
 * The embedded default's pods: each is a process tree on this host, headed by the pod agent, inside the engine
 * sandbox (lib/pods/sandbox), in a session of its own. A pod outlives the worker that started it, as a whole: the
 * agent writes its events to a file in the pod's work folder (not to a pipe that would close with the worker), and a
 * pid file lets the next worker re-attach to it (`attach`) or stop it. Nothing of a pod outlives its deadline.
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
    if ((host.cgroups || host.cpu) && this.options.claimsDir === undefined) {
      const swept = await sweepStalePodCgroups(host.cgroups, await livePodClaims(), host.cpu?.root).catch(
        () => [] as string[],
      );
      // a sweep kills whatever is left in those cgroups: a live pod's engine there would die, and this says why
      if (swept.length > 0) logger.info("stale pod cgroups swept", { podId, swept });
    }
    const logDir = join(this.options.stateDir, "logs", podId);
    let prepared: PreparedPod;
    try {
      prepared = await prepareLocalPod({
        podId,
        launch,
        host,
        settings: { ...DEFAULT_SETTINGS, ...this.options.sandboxSettings },
        workDir: join(this.options.stateDir, "pods", podId),
        logDir,
        agent: repoAgentCommand(),
      });
    } catch (error) {
      await claim.release();
      throw error;
    }
    // root-only like the folder that holds it: the agent opens it before its mounts hide the folder
    const eventsFile = join(prepared.cleanup.workDir, "events.jsonl");
    await writeFile(eventsFile, "", { mode: 0o600 });
    const agentLog = join(logDir, "agent.log");
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
      ARENA_ENGINE_USER: claim.user,
      ARENA_SANDBOX: JSON.stringify(prepared.sandbox),
      ARENA_EVENTS_FILE: eventsFile,
    };
    // the agent's output goes to a file, never a pipe: a pipe would close with this worker, and the pod with it
    const output = await open(agentLog, "a", 0o600);
    let child: ChildProcess;
    try {
      child = spawn(prepared.command, prepared.args, {
        cwd: REPO_ROOT,
        env: env as unknown as NodeJS.ProcessEnv,
        detached: true,
        stdio: ["ignore", output.fd, output.fd],
      });
    } finally {
      await output.close();
    }
    // the pods' timing is the measurement: where it shares the cores evenly with the host's other work, operators hear why
    if ("why" in prepared.cpu)
      logger.warn("pod runs at the host's default CPU share", { podId, why: prepared.cpu.why });
    if (child.pid === undefined) await claim.release();
    else await claim.holdFor(child.pid);
    const startedAt = new Date();
    const info: PidFile = {
      podId,
      pid: child.pid ?? -1,
      ...(child.pid === undefined ? {} : { startTicks: processStartTicks(child.pid) ?? undefined }),
      evaluationId: launch.evaluationId,
      attempt: launch.attempt,
      startedAt: startedAt.toISOString(),
      engineUser: claim.user,
      workDir: prepared.cleanup.workDir,
      cgroups: prepared.cleanup.cgroups,
      deadlineAt: new Date(startedAt.getTime() + launch.deadlineSeconds * 1000).toISOString(),
      eventsFile,
      agentLog,
      missing: prepared.missing,
      separateUser: prepared.separateUser,
    };
    await writeFile(this.pidFile(podId), JSON.stringify(info), { mode: 0o600 });
    // never silently: what the sandbox lacks on this host opens the evaluation's log
    const note: PodEvent = {
      type: "log",
      level: prepared.missing.length > 0 ? "warn" : "info",
      message: describeMissing(prepared.missing),
    };
    return this.follow(info, 0, [note], { child, releaseClaim: () => claim.release() });
  }

  async attach(podId: string, afterSeq: number): Promise<PodHandle | null> {
    const info = await this.readPidFile(podId);
    if (!info?.eventsFile) return null;
    const readable = await open(info.eventsFile, "r").then(
      (handle) => handle.close().then(() => true),
      () => false,
    );
    return readable ? this.follow(info, afterSeq, [], null) : null;
  }

  /**
   * Follows a pod through its event file, from the start (what it says about its engines and sandbox is state the
   * follower needs), handing on the events numbered above `afterSeq`; ends when its process has ended and the file
   * is read to its end, then cleans up after it.
   */
  private follow(info: PidFile, afterSeq: number, opening: PodEvent[], own: OwnPod | null): PodHandle {
    const { podId } = info;
    const events = new AsyncQueue<PodEvent>();
    for (const note of opening) events.push(note);
    let missing: MissingProperty[] = info.missing;
    let separateUser = info.separateUser;
    let running: Role | null = null;
    let sawResult = false;
    let exitLine: AgentExit | null = null;
    let detached = false;
    const follower = followFile(
      info.eventsFile!,
      (line) => {
        const exit = parseAgentExit(line);
        if (exit) {
          exitLine = exit;
          return;
        }
        const parsed = parsePodLine(line);
        if (!parsed) return;
        const { seq, event } = parsed;
        const fresh = seq === undefined || seq > afterSeq;
        if (event.type === "engine") running = event.state === "stopped" ? null : event.engine;
        // the agent could not give its engines their own user (a checkout the engine user cannot read): say so too
        if (event.type === "log" && event.message.endsWith(ENGINES_AS_AGENT) && separateUser) {
          separateUser = false;
          missing = mergeMissing(missing, { "engine-user": event.message });
          if (fresh) events.push({ type: "log", level: "warn", message: describeMissing(missing) });
        }
        if (!fresh) return;
        const relayed: PodEvent = seq === undefined ? event : { ...event, seq };
        if (relayed.type === "result") {
          sawResult = true;
          events.push(withSandboxNote(relayed, missing));
        } else events.push(relayed);
      },
      this.options.pollMs,
    );
    const timers: NodeJS.Timeout[] = [];
    const deadlineAt = info.deadlineAt ? Date.parse(info.deadlineAt) : Number.POSITIVE_INFINITY;
    if (Number.isFinite(deadlineAt)) {
      const backstop = setTimeout(
        () => void this.stop(podId),
        Math.max(0, deadlineAt + DEADLINE_BACKSTOP_MS - Date.now()),
      );
      backstop.unref();
      timers.push(backstop);
    }
    const processEnded = new Promise<ProcessEnd>((resolve) => {
      if (own) {
        // a command that could not start (an error, and no exit) ends the pod as an exit would
        own.child.on("error", (error) => {
          if (own.child.pid === undefined) resolve({ code: null, signal: null, startError: error.message });
        });
        own.child.on("exit", (code, signal) => resolve({ code, signal }));
        return;
      }
      const poll = setInterval(() => {
        if (!podAlive(info)) resolve({ code: null, signal: null });
      }, this.options.pollMs ?? 250);
      timers.push(poll);
      if (!podAlive(info)) resolve({ code: null, signal: null });
    });
    const exited = new Promise<PodExit>((resolve) => {
      void processEnded.then(async (end) => {
        for (const timer of timers) clearTimeout(timer);
        if (detached) return;
        await follower.drain().catch(() => undefined);
        if (detached) return;
        const line = exitLine as AgentExit | null;
        // An agent killed by a signal nobody here sent (it wrote no exit line), while the candidate ran, where engines
        // share its user: the candidate's engine is the one process that could (protocol section 7: a candidate that
        // dies scores 0).
        if (!sawResult && line === null && !this.stopping.has(podId) && !separateUser && running === "candidate")
          events.push({
            type: "result",
            outcome: "scored",
            reason: `the candidate engine killed the pod agent (${end.signal ?? "a signal"}), which shares its user on this host`,
            record: null,
          });
        events.end();
        const tail = end.startError ? [`the pod could not start: ${end.startError}`] : await logTail(info.agentLog);
        logger.info("pod ended", {
          podId,
          code: exitLine === null ? end.code : (exitLine as AgentExit).code,
          signal: end.signal,
          stopped: this.stopping.has(podId),
          ...(sawResult ? {} : { agentLogTail: tail }),
        });
        await this.cleanup(info);
        await (own ? own.releaseClaim() : releasePodClaim(podId, this.options.claimsDir)).catch(() => undefined);
        const code = line?.code ?? end.code;
        if (code === 0 && !end.startError) resolve({ kind: "completed" });
        else if (this.stopping.has(podId))
          resolve({ kind: "failed", reason: "pod-lost", message: "the pod was stopped" });
        else if (line?.reason === "deadline")
          resolve({ kind: "failed", reason: "deadline-exceeded", message: "the pod reached its deadline" });
        else
          resolve({
            kind: "failed",
            reason: "agent-crashed",
            message: `the pod agent exited with ${code ?? end.signal ?? "a signal"}: ${tail.join(" | ")}`,
          });
      });
    });
    return {
      podId,
      events,
      exited,
      detach() {
        detached = true;
        for (const timer of timers) clearTimeout(timer);
        follower.close();
        events.end();
      },
    };
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
    const info = await this.readPidFile(podId);
    if (!info) return;
    const signal = (s: NodeJS.Signals) => {
      // a pid reused since the agent ended is another process group's: only the pod's own is signalled
      if (!podAlive(info)) return;
      try {
        process.kill(-info.pid, s);
      } catch {
        // already gone
      }
    };
    signal("SIGTERM");
    const until = Date.now() + (this.options.stopGraceMs ?? 15_000);
    while (podAlive(info) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    signal("SIGKILL");
    // a pod no worker follows (its worker died) has no exit handler here to clean up after it
    const gone = Date.now() + 5000;
    while (podAlive(info) && Date.now() < gone) await new Promise((r) => setTimeout(r, 50));
    await this.cleanup(info);
    await releasePodClaim(podId, this.options.claimsDir).catch(() => undefined);
  }

  async list(): Promise<PodInfo[]> {
    return (await this.readPidFiles()).map((info) => ({
      podId: info.podId,
      evaluationId: info.evaluationId,
      attempt: info.attempt,
      phase: podAlive(info) ? "running" : "unknown",
      ...(info.deadlineAt ? { deadlineAt: new Date(info.deadlineAt) } : {}),
    }));
  }

  private async readPidFile(podId: string): Promise<PidFile | null> {
    try {
      return pidFileSchema.parse(JSON.parse(await readFile(this.pidFile(podId), "utf8")));
    } catch {
      return null;
    }
  }

  private async readPidFiles(): Promise<PidFile[]> {
    const dir = join(this.options.stateDir, "pods");
    const names = await readdir(dir).catch(() => [] as string[]);
    const out: PidFile[] = [];
    for (const name of names.filter((n) => n.endsWith(".json"))) {
      const info = await this.readPidFile(name.slice(0, -".json".length));
      // a pid file being written or removed is skipped
      if (info) out.push(info);
    }
    return out;
  }
}

/** The last lines of the agent's own output (its stack trace when it crashed), for the operators' log. */
async function logTail(file: string | undefined, lines = 5): Promise<string[]> {
  if (!file) return [];
  const handle = await open(file, "r").catch(() => null);
  if (!handle) return [];
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, 16 * 1024);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString("utf8").split("\n").filter(Boolean).slice(-lines);
  } finally {
    await handle.close();
  }
}

/** The result record says under which sandbox it was measured (its reproducibility), what it lacked included. */
function withSandboxNote<E extends Extract<AgentEvent, { type: "result" }>>(
  event: E,
  missing: readonly MissingProperty[],
): E {
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
