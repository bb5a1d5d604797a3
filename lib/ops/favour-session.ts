import { readFileSync, writeFileSync } from "node:fs";

/**
 * Raises the CPU share of the session a process leads (it was spawned detached: setsid). With the kernel's
 * autogroup scheduling (Debian's default), CPU time is shared between sessions before processes: a session that holds
 * one busy process gets no more than one that holds ten. `nice` is the autogroup's (-20 to 19); below 0 needs root or
 * CAP_SYS_NICE. Returns whether the share was set: false where autogroups are off or the raise is not permitted.
 */
export function favourSession(pid: number, nice = -10): boolean {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    return true;
  } catch {
    return false;
  }
}

/** The autogroup's nice value of a process, or null where there are no autogroups. */
export function sessionNice(pid: number): number | null {
  try {
    const match = /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, "utf8"));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
