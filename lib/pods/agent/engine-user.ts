import { execFile, spawnSync } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface EngineIdentity {
  /** null when the agent is not root and engines run as the agent's own user. */
  uid: number | null;
  gid: number | null;
  name: string | null;
}

/** Whether the user can read every path (and so traverse every folder above it). */
function reachable(uid: number, gid: number, paths: readonly string[]): string | null {
  for (const path of paths) {
    const result = spawnSync("test", ["-r", path], { uid, gid, stdio: "ignore" });
    if (result.status !== 0) return path;
  }
  return null;
}

/**
 * The unprivileged user engines run as: created on first use when the agent is root. Where that user cannot
 * read what an engine needs (a checkout inside a private home folder), engines run as the agent's own user and
 * `onFallback` says why: a local arena's convenience, never a pod's (the Kubernetes pod runs non-root throughout).
 */
export async function engineIdentity(
  isRoot: boolean,
  user: string,
  mustReach: readonly string[] = [],
  onFallback?: (why: string) => void,
): Promise<EngineIdentity> {
  if (!isRoot) return { uid: null, gid: null, name: null };
  const identity = await ensureEngineUser(user);
  const blocked = reachable(identity.uid!, identity.gid!, mustReach);
  if (blocked) {
    onFallback?.(`${user} cannot read ${blocked}: engines run as the agent's user`);
    return { uid: null, gid: null, name: null };
  }
  return identity;
}

async function ensureEngineUser(user: string): Promise<EngineIdentity> {
  const lookup = async () => {
    const { stdout: uid } = await run("id", ["-u", user]);
    const { stdout: gid } = await run("id", ["-g", user]);
    return { uid: Number.parseInt(uid, 10), gid: Number.parseInt(gid, 10), name: user };
  };
  try {
    return await lookup();
  } catch {
    await run("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", user]).catch(() => undefined);
    return lookup();
  }
}

/** Kills every process of the engine's user (root only) — leftovers must not slow the stock engine. */
export async function killUserProcesses(identity: EngineIdentity): Promise<void> {
  if (identity.uid === null) return;
  await run("pkill", ["-KILL", "-u", String(identity.uid)]).catch(() => undefined);
}
