import { execFile, spawnSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { type EngineSandbox, parsePodSandbox } from "../sandbox/pod-sandbox-config";

const run = promisify(execFile);

export interface EngineIdentity {
  /** null when the agent is not root and engines run as the agent's own user. */
  uid: number | null;
  gid: number | null;
  name: string | null;
  /** The pod's sandbox around its engines (the local backend's `ARENA_SANDBOX`); absent where it sets none. */
  sandbox?: EngineSandbox;
}

/** The identity with the sandbox the pod's backend described (`ARENA_SANDBOX`), which every start and stop then use. */
export function withPodSandbox(raw: string | undefined, identity: EngineIdentity): EngineIdentity {
  const config = parsePodSandbox(raw);
  if (!config) return identity;
  return { ...identity, sandbox: { cgroups: config.cgroups, privateDirs: config.privateDirs, logDir: config.logDir } };
}

/**
 * How the agent's log says engines fell back to its own user: the local backend reads it to mark the sandbox's
 * engine-user properties missing for that pod (lib/pods/local/local-pod-backend.ts).
 */
export const ENGINES_AS_AGENT = "engines run as the agent's user";

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
    onFallback?.(`${user} cannot read ${blocked}: ${ENGINES_AS_AGENT}`);
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

/**
 * Kills every process of the engine's user (root only) and waits until none is left — leftovers must not slow the
 * stock engine. In a local pod's PID namespace, `pkill` sees the pod's processes only.
 */
export async function killUserProcesses(identity: EngineIdentity, timeoutMs = 10_000): Promise<void> {
  if (identity.uid === null) return;
  const uid = String(identity.uid);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await run("pkill", ["-KILL", "-u", uid]).catch(() => undefined);
    if ((await livePidsOf(identity.uid)).length === 0) return;
    if (Date.now() > deadline) throw new Error(`processes of uid ${uid} outlived SIGKILL`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The processes of a uid this process can see that still run (a zombie is dead already: its parent reaps it). */
export async function livePidsOf(uid: number): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir("/proc").catch(() => [] as string[])) {
    if (!/^\d+$/.test(name)) continue;
    const status = await readFile(`/proc/${name}/status`, "utf8").catch(() => "");
    const owner = /^Uid:\s+(\d+)/m.exec(status)?.[1];
    const state = /^State:\s+(\S)/m.exec(status)?.[1];
    if (owner === String(uid) && state !== "Z" && state !== "X") out.push(Number(name));
  }
  return out;
}
