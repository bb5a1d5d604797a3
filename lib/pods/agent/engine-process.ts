import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { chown, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { lineSplitter } from "../async-queue";
import type { EngineIdentity } from "./engine-user";
import { killUserProcesses } from "./engine-user";

export interface EngineStart {
  role: "candidate" | "stock";
  engineDir: string;
  scratchDir: string;
  env: Record<string, string>;
  identity: EngineIdentity;
  onLog?: (line: string) => void;
}

export interface RunningEngine {
  role: "candidate" | "stock";
  url: string;
  child: ChildProcess;
  /** Settles with the exit code (or signal) when the engine's main process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The engine's output (start-up log included), kept for the gates and the failure page. */
  log: string[];
  logTail(lines?: number): string;
}

const LOG_KEEP = 2000;

/** Starts `launch.sh serve` in its own process group, as the engine user when the agent is root. */
export async function startEngine(start: EngineStart): Promise<RunningEngine> {
  await mkdir(start.scratchDir, { recursive: true });
  if (start.identity.uid !== null) await chown(start.scratchDir, start.identity.uid, start.identity.gid!);
  const options: SpawnOptions = {
    cwd: start.scratchDir,
    // the whole environment is engineEnv's (its HOME and TMPDIR are this start's scratch): nothing is added here
    env: start.env as unknown as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  };
  if (start.identity.uid !== null) {
    options.uid = start.identity.uid;
    options.gid = start.identity.gid!;
  }
  const child = spawn("bash", [join(start.engineDir, "launch.sh"), "serve"], options);
  const log: string[] = [];
  const keep = (line: string) => {
    log.push(line);
    if (log.length > LOG_KEEP) log.splice(0, log.length - LOG_KEEP);
    start.onLog?.(line);
  };
  const out = lineSplitter(keep);
  const err = lineSplitter(keep);
  child.stdout!.on("data", (c: Buffer) => out.write(c));
  child.stderr!.on("data", (c: Buffer) => err.write(c));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on("exit", (code, signal) => {
      out.flush();
      err.flush();
      resolve({ code, signal });
    });
    child.on("error", (error) => {
      keep(`failed to start launch.sh: ${error.message}`);
      resolve({ code: -1, signal: null });
    });
  });
  return {
    role: start.role,
    url: `http://127.0.0.1:${start.env.PORT}`,
    child,
    exited,
    log,
    logTail: (lines = 60) => log.slice(-lines).join("\n"),
  };
}

/** Waits for `/health` to answer 200; fails when the engine exits first or the deadline passes. */
export async function waitHealthy(
  engine: RunningEngine,
  timeoutMs: number,
): Promise<{ ok: true } | { ok: false; why: string }> {
  const deadline = Date.now() + timeoutMs;
  let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void engine.exited.then((e) => {
    exited = e;
  });
  while (Date.now() < deadline) {
    if (exited)
      return { ok: false, why: `the engine exited before it was healthy (code ${exited.code ?? exited.signal})` };
    try {
      const response = await fetch(`${engine.url}/health`, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return { ok: true };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { ok: false, why: `the engine did not answer /health within ${Math.round(timeoutMs / 1000)} s` };
}

/**
 * Stops an engine as the protocol says: SIGTERM to its process group, SIGKILL after the grace period;
 * then every process of the engine's user is killed and its shared-memory and scratch files removed.
 */
export async function stopEngine(engine: RunningEngine, identity: EngineIdentity, graceMs: number, scratchDir: string) {
  const pgid = engine.child.pid;
  const signalGroup = (signal: NodeJS.Signals) => {
    if (pgid === undefined) return;
    try {
      process.kill(-pgid, signal);
    } catch {
      // the group is gone
    }
  };
  signalGroup("SIGTERM");
  const timeout = new Promise<"timeout">((r) => setTimeout(() => r("timeout"), graceMs).unref());
  if ((await Promise.race([engine.exited, timeout])) === "timeout") {
    signalGroup("SIGKILL");
    await engine.exited;
  }
  signalGroup("SIGKILL");
  await killUserProcesses(identity);
  await removeShm(identity);
  await rm(scratchDir, { recursive: true, force: true });
}

async function removeShm(identity: EngineIdentity): Promise<void> {
  if (identity.uid === null) return;
  const entries = await readdir("/dev/shm").catch(() => [] as string[]);
  for (const name of entries) {
    const path = join("/dev/shm", name);
    const info = await stat(path).catch(() => null);
    if (info && info.uid === identity.uid) await rm(path, { recursive: true, force: true });
  }
}
