import { readFileSync } from "node:fs";

/** A zombie has exited: only its parent's reaping is left, which a dead worker's pod may wait on for a while. */
function exited(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state === "Z" || state === "X";
  } catch {
    return false;
  }
}

/**
 * Whether a process with this pid exists and has not exited. EPERM means it does, under a user this one may not
 * signal (an engine user's process, or a pid reused by another user's): treating that as dead would let a claim or a
 * pod be taken over while its holder still runs. A zombie (exited, not yet reaped) is dead.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  return !exited(pid);
}

/** When a process started, in clock ticks after boot (/proc's `starttime`); null where it cannot be read. */
export function processStartTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ticks = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
    return Number.isInteger(ticks) ? ticks : null;
  } catch {
    return null;
  }
}

/**
 * `processAlive`, and still the process that started at `startTicks` where that was recorded: a pid is reused once
 * its process is gone (pid_max can be 32,768), and a pod's pid file outlives its agent until a worker cleans up.
 */
export function sameProcessAlive(pid: number, startTicks: number | undefined): boolean {
  if (!processAlive(pid)) return false;
  if (startTicks === undefined) return true;
  const now = processStartTicks(pid);
  return now === null || now === startTicks;
}
