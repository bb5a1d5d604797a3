/**
 * Whether a process with this pid exists. EPERM means it does, under a user this one may not signal (an engine
 * user's process, or a pid reused by another user's): treating that as dead would let a claim or a pod be taken over
 * while its holder still runs.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
