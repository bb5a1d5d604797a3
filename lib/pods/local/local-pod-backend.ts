import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { AgentEvent } from "../agent/events";
import { parseAgentLine } from "../agent/events";
import { AsyncQueue, lineSplitter } from "../async-queue";
import type { PodBackend, PodExit, PodHandle, PodInfo, PodLaunch } from "../types";
import { claimEngineUser } from "./engine-user-claims";
import { processAlive } from "./process-alive";

const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

const pidFileSchema = z.object({
  podId: z.string(),
  pid: z.number().int(),
  evaluationId: z.string(),
  attempt: z.number().int(),
  startedAt: z.string(),
  engineUser: z.string().default("arena-engine-1"),
});

export interface LocalBackendOptions {
  /** Where pid files and pods' scratch live. */
  stateDir: string;
  /** Extra environment for the agent (the simulated engine's settings, the pool path...). */
  agentEnv: Record<string, string>;
  /** How long an agent has after SIGTERM to stop its engines before it is killed. */
  stopGraceMs?: number;
  /** Where pods claim engine users: shared by every worker of the host (default: DEFAULT_CLAIMS_DIR). */
  claimsDir?: string;
}

/**
 * The embedded default's pods: each is a process group on this host, headed by the pod agent.
 * Pid files let a new worker find and stop the pods a dead one left behind.
 */
export class LocalPodBackend implements PodBackend {
  readonly name = "local" as const;
  private readonly stopping = new Set<string>();

  constructor(private readonly options: LocalBackendOptions) {}

  private pidFile(podId: string): string {
    return join(this.options.stateDir, "pods", `${podId}.json`);
  }

  async start(launch: PodLaunch): Promise<PodHandle> {
    const podId = `local-${launch.evaluationId}-${launch.attempt}`;
    const claim = await claimEngineUser(this.options.claimsDir);
    const engineUser = claim.user;
    const workDir = join(this.options.stateDir, "pods", podId);
    await mkdir(workDir, { recursive: true });
    const env: Record<string, string> = {
      PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin",
      ...this.options.agentEnv,
      ARENA_EVALUATION_ID: launch.evaluationId,
      ARENA_ATTEMPT: String(launch.attempt),
      ARENA_TASK: launch.taskId,
      ARENA_PROFILE: launch.profile,
      ARENA_SEED: String(launch.seed),
      ARENA_ENGINE_DIR: launch.engineDir,
      ARENA_SPECULATOR_DIR: launch.speculatorDir,
      ARENA_TARGET_DIR: launch.targetDir,
      ARENA_STOCK_ENGINE_DIR: launch.stockEngineDir,
      ARENA_SCRATCH_DIR: workDir,
      ARENA_DEADLINE_SECONDS: String(launch.deadlineSeconds),
      ARENA_ENGINE_USER: engineUser,
      ...(launch.poolPath ? { ARENA_POOL_PATH: launch.poolPath } : {}),
    };
    const child = spawn(process.execPath, ["--import", "tsx", join(REPO_ROOT, "lib/pods/agent/main.ts")], {
      cwd: REPO_ROOT,
      env: env as unknown as NodeJS.ProcessEnv,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    if (child.pid === undefined) await claim.release();
    else await claim.holdFor(child.pid);
    const events = new AsyncQueue<AgentEvent>();
    const stderrTail: string[] = [];
    const out = lineSplitter((line) => {
      const event = parseAgentLine(line);
      if (event) events.push(event);
    });
    const err = lineSplitter((line) => {
      stderrTail.push(line);
      if (stderrTail.length > 50) stderrTail.shift();
    });
    child.stdout.on("data", (c: Buffer) => out.write(c));
    child.stderr.on("data", (c: Buffer) => err.write(c));
    await writeFile(
      this.pidFile(podId),
      JSON.stringify({
        podId,
        pid: child.pid,
        evaluationId: launch.evaluationId,
        attempt: launch.attempt,
        startedAt: new Date().toISOString(),
        engineUser,
      }),
    );
    const deadline = setTimeout(() => void this.stop(podId), launch.deadlineSeconds * 1000);
    deadline.unref();
    const exited = new Promise<PodExit>((resolve) => {
      child.on("exit", (code, signal) => {
        clearTimeout(deadline);
        out.flush();
        err.flush();
        events.end();
        void rm(this.pidFile(podId), { force: true });
        void claim.release();
        if (code === 0) resolve({ kind: "completed" });
        else if (this.stopping.has(podId))
          resolve({ kind: "failed", reason: "pod-lost", message: "the pod was stopped" });
        else
          resolve({
            kind: "failed",
            reason: "agent-crashed",
            message: `the pod agent exited with ${code ?? signal}: ${stderrTail.slice(-5).join(" | ")}`,
          });
      });
    });
    return { podId, events, exited };
  }

  async stop(podId: string): Promise<void> {
    this.stopping.add(podId);
    let info: z.infer<typeof pidFileSchema>;
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
    await rm(this.pidFile(podId), { force: true });
  }

  async list(): Promise<PodInfo[]> {
    return (await this.readPidFiles()).map((info) => ({
      podId: info.podId,
      evaluationId: info.evaluationId,
      attempt: info.attempt,
      phase: processAlive(info.pid) ? "running" : "unknown",
    }));
  }

  private async readPidFiles(): Promise<z.infer<typeof pidFileSchema>[]> {
    const dir = join(this.options.stateDir, "pods");
    const names = await readdir(dir).catch(() => [] as string[]);
    const out: z.infer<typeof pidFileSchema>[] = [];
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
