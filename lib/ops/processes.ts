import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { createFailureDigest } from "./failure-digest";
import { favourSession } from "./favour-session";

export type ChildEnv = Record<string, string | undefined>;

/** Runs a command to completion with inherited output; rejects naming the command when it fails. */
export function runStep(
  command: string,
  args: string[],
  options: { env?: ChildEnv; cwd?: string } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: "inherit", env: options.env as NodeJS.ProcessEnv, cwd: options.cwd });
    child.once("error", (error) => reject(new Error(`${command} could not start: ${error.message}`)));
    child.once("exit", (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${[command, ...args].join(" ")} exited with ${signal ?? `code ${code}`}`));
    });
  });
}

/**
 * Runs a command to completion with each output line prefixed with its name (steps that run side by side stay
 * readable); rejects naming the command, and the tests it said failed, when it fails. A `favoured` step runs in a
 * session of its own whose CPU share is raised where that is permitted (favour-session.ts): a step of one process
 * beside steps whose tests start engines in sessions of their own gets its share back.
 */
export function runPrefixedStep(
  name: string,
  command: string,
  args: string[],
  options: { env?: ChildEnv; cwd?: string; favoured?: boolean } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    // in the caller's process group (not startPrefixed's own) unless favoured: a Ctrl-C reaches the step too
    const child = spawn(command, args, {
      stdio: ["ignore", "pipe", "pipe"],
      env: options.env as NodeJS.ProcessEnv,
      cwd: options.cwd,
      detached: options.favoured === true,
    });
    // a favoured step is outside the terminal's process group: what stops the caller stops it, then the caller as it
    // would have been stopped without this listener
    const forward = (signal: NodeJS.Signals) => {
      killGroup(child, signal);
      process.off("SIGINT", forward).off("SIGTERM", forward);
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    };
    if (options.favoured && child.pid !== undefined) {
      favourSession(child.pid);
      process.on("SIGINT", forward).on("SIGTERM", forward);
      child.once("exit", () => process.off("SIGINT", forward).off("SIGTERM", forward));
    }
    // one a stream: the two interleave in no fixed order, and a runner writes a failure's heading and error to one
    const digests = [createFailureDigest(), createFailureDigest()];
    for (const [index, stream] of [child.stdout, child.stderr].entries())
      createInterface({ input: stream }).on("line", (line) => {
        digests[index]?.push(line);
        process.stdout.write(`[${name}] ${line}\n`);
      });
    child.once("error", (error) => reject(new Error(`${command} could not start: ${error.message}`)));
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (code === 0) return resolve();
      const failures = digests.flatMap((digest) => digest.lines());
      reject(
        new Error(
          `${[command, ...args].join(" ")} exited with ${signal ?? `code ${code}`}${failures.length ? `; what failed:\n${failures.join("\n")}` : ""}`,
        ),
      );
    };
    // its last lines are read by "close"; a process it left behind may hold the pipes open, so not past a moment
    child.once("exit", (code, signal) => {
      const timer = setTimeout(() => settle(code, signal), 2_000);
      child.once("close", () => {
        clearTimeout(timer);
        settle(code, signal);
      });
    });
  });
}

/** Starts a long-running process whose output lines are prefixed with its name. */
export function startPrefixed(
  name: string,
  command: string,
  args: string[],
  options: { env?: ChildEnv; cwd?: string; write?: (line: string) => void } = {},
): ChildProcess {
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const child = spawn(command, args, {
    stdio: ["ignore", "pipe", "pipe"],
    env: options.env as NodeJS.ProcessEnv,
    cwd: options.cwd,
    // Its own process group, so stopping it also stops what it spawned (npx → tsx → node).
    detached: true,
  });
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on("line", (line) => write(`[${name}] ${line}`));
  }
  return child;
}

/** Sends `signal` to the child's process group (it was started detached, as its group's leader). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // nothing of the group is left
  }
}

/** SIGTERM to the child's process group, SIGKILL after `graceMs`; resolves once it exited. */
export async function stopGroup(child: ChildProcess, graceMs = 15_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const pid = child.pid;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      child.kill(sig);
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** Polls `url` until it answers HTTP at all (error pages are for the tests); rejects when `child` exits first. */
export async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`the process serving ${url} exited (${child.signalCode ?? `code ${child.exitCode}`})`);
    }
    try {
      await fetch(url, { redirect: "manual", signal: AbortSignal.timeout(5_000) });
      return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

export function formatSeconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
