import { type ChildProcess, type SpawnOptions, spawn } from "node:child_process";
import { createWriteStream } from "node:fs";
import { chown, mkdir, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import { lineSplitter } from "../async-queue";
import { killCgroup } from "../sandbox/cgroups";
import { engineCommand } from "../sandbox/engine-command";
import { clearLeftovers } from "../sandbox/leftovers";
import { NO_SANDBOX } from "../sandbox/pod-sandbox-config";
import type { EngineIdentity } from "./engine-user";
import { killUserProcesses } from "./engine-user";

export interface EngineStart {
  role: "candidate" | "stock";
  /** The operators' name of this start (its log file); the scratch folder's name when absent. */
  name?: string;
  engineDir: string;
  scratchDir: string;
  env: Record<string, string>;
  identity: EngineIdentity;
  onLog?: (line: string) => void;
}

export interface RunningEngine {
  role: "candidate" | "stock";
  url: string;
  /** The engine's main process, where it is this agent's child; absent for an engine in the pod's engine container. */
  child?: ChildProcess;
  /** Settles with the exit code (or signal) when the engine's main process ends. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The engine's output (start-up log included), kept for the gates and the failure page. */
  log: string[];
  logTail(lines?: number): string;
  /** Whether the engine's main process has ended. */
  hasExited(): boolean;
}

const LOG_KEEP = 2000;
/** An engine start's whole output, as the operators' log keeps it, stops here (a note says so). */
const LOG_FILE_MAX_BYTES = 64 * 1024 * 1024;

/**
 * The operators' copy of an engine start's output (the sandbox's `logDir`): `<start name>.log`, each line stamped
 * with the agent's clock, for as long as anything holds the engine's output open (a process it left behind too).
 */
function operatorsLog(dir: string | null, name: string): ((line: string) => void) & { end(): void } {
  if (!dir) return Object.assign(() => undefined, { end: () => undefined });
  const stream = createWriteStream(join(dir, `${name}.log`), { flags: "a", mode: 0o600 });
  stream.on("error", () => undefined);
  let written = 0;
  const write = (line: string) => {
    if (written > LOG_FILE_MAX_BYTES) return;
    const text = `${new Date().toISOString()} ${line}\n`;
    written += Buffer.byteLength(text);
    stream.write(written > LOG_FILE_MAX_BYTES ? `${new Date().toISOString()} [the rest is not kept]\n` : text);
  };
  return Object.assign(write, { end: () => stream.end() });
}

/**
 * Starts `launch.sh serve` in its own process group, as the engine user when the agent is root, inside the pod's
 * engine cgroup when it has one.
 */
export async function startEngine(start: EngineStart): Promise<RunningEngine> {
  const sandbox = start.identity.sandbox ?? NO_SANDBOX;
  await mkdir(start.scratchDir, { recursive: true });
  if (start.identity.uid !== null) await chown(start.scratchDir, start.identity.uid, start.identity.gid!);
  const launch = engineCommand(start.identity, sandbox.cgroups, "bash", [join(start.engineDir, "launch.sh"), "serve"]);
  const options: SpawnOptions = {
    cwd: start.scratchDir,
    // the whole environment is engineEnv's (its HOME and TMPDIR are this start's scratch): nothing is added here
    env: start.env as unknown as NodeJS.ProcessEnv,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    ...(launch.uid !== undefined ? { uid: launch.uid, gid: launch.gid! } : {}),
  };
  const child = spawn(launch.command, launch.args, options);
  const log: string[] = [];
  const file = operatorsLog(sandbox.logDir, start.name ?? basename(start.scratchDir));
  child.on("close", () => file.end());
  const keep = (line: string) => {
    log.push(line);
    if (log.length > LOG_KEEP) log.splice(0, log.length - LOG_KEEP);
    file(line);
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
    hasExited: () => child.exitCode !== null || child.signalCode !== null,
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
 * Stops an engine as the protocol says: SIGTERM to its process group, SIGKILL after the grace period; then every
 * process of its cgroup and of the engine's user is killed (whatever group or session it made for itself), the agent
 * waits until none is left, and the files it left in shared memory and scratch are removed.
 */
export async function stopEngine(engine: RunningEngine, identity: EngineIdentity, graceMs: number, scratchDir: string) {
  const sandbox = identity.sandbox ?? NO_SANDBOX;
  const pgid = engine.child?.pid;
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
  if (sandbox.cgroups.length > 0) await killCgroup(sandbox.cgroups);
  await killUserProcesses(identity);
  const self = process.getuid?.() ?? -1;
  if (sandbox.privateDirs.length > 0) await clearLeftovers(sandbox.privateDirs, (owner) => owner !== self);
  else if (identity.uid !== null) await clearLeftovers(HOST_SCRATCH, (owner) => owner === identity.uid);
  await rm(scratchDir, { recursive: true, force: true });
}

/** The host's folders every user may write, where an engine without a tmpfs of its own leaves files. */
const HOST_SCRATCH = ["/dev/shm", "/tmp", "/var/tmp"];
