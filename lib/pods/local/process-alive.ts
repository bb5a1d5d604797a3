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
