import { fileURLToPath } from "node:url";

/** Joins the engine cgroup, then drops to the engine user (see the script). */
export const ENTER_ENGINE = fileURLToPath(new URL("./enter-engine.sh", import.meta.url));

/** enter-engine.sh's status when the command it was to run is not there (the shell's own "not found"). */
export const ENTER_NOT_FOUND = 127;

export interface EngineCommand {
  command: string;
  args: string[];
  /** Set where node's spawn itself switches user (no cgroup to join first). */
  uid?: number;
  gid?: number;
}

/**
 * How the agent starts a process of the engine's: through enter-engine.sh when the pod has an engine cgroup (it
 * must join before it can fork, and only root can move it there), else directly, as the engine user where the
 * agent is root.
 */
export function engineCommand(
  identity: { uid: number | null; gid: number | null },
  cgroups: readonly string[],
  command: string,
  args: readonly string[],
): EngineCommand {
  if (cgroups.length === 0) {
    return identity.uid !== null
      ? { command, args: [...args], uid: identity.uid, gid: identity.gid! }
      : { command, args: [...args] };
  }
  const uid = identity.uid !== null ? String(identity.uid) : "-";
  const gid = identity.uid !== null ? String(identity.gid) : "-";
  return { command: "bash", args: [ENTER_ENGINE, uid, gid, ...cgroups, "--", command, ...args] };
}
