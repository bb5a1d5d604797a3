import { randomBytes } from "node:crypto";
import { link, mkdir, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processAlive } from "./process-alive";

/**
 * Where this host's local pods claim their engine users: one folder for every worker of the host and user, whatever
 * its state folder. Per user, so one user's folder never blocks another's; only root's pods switch to engine users.
 */
export const DEFAULT_CLAIMS_DIR = join(tmpdir(), `arena-engine-users-${process.getuid?.() ?? "any"}`);

export interface EngineUserClaim {
  user: string;
  /** Hands the claim to the process that now holds the user (the pod's agent, once spawned). */
  holdFor(pid: number): Promise<void>;
  /** Removes the claim, unless another pod's has replaced it since (taken over once this one's holder died). */
  release(): Promise<void>;
}

const code = (error: unknown) => (error as NodeJS.ErrnoException).code;

/**
 * Claims the first of arena-engine-1, -2, … that no live process on this host holds. The agent kills every process
 * of its engine user between engines, so two pods must never share one, even pods of workers with different state
 * folders. A claim is a file created exclusively, holding its holder's pid; a holder that died leaves a stale claim,
 * which is moved aside atomically (so two claimers cannot both take it) before the user is claimed anew.
 */
export async function claimEngineUser(dir: string = DEFAULT_CLAIMS_DIR, podId?: string): Promise<EngineUserClaim> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // "<pid> <pod>": the pod named lets a sweep tell a live pod's cgroup from a dead one's (liveClaims)
  const claimText = (pid: number) => (podId ? `${pid} ${podId}` : String(pid));
  for (let i = 1; ; i++) {
    const user = `arena-engine-${i}`;
    const path = join(dir, user);
    for (let attempt = 0; attempt < 3; attempt++) {
      // written whole aside, then linked into place (link fails when the claim exists): no reader, another claimer's
      // stale check or a cgroup sweep, ever finds it empty and takes the pod for dead
      const draft = `${path}.draft-${process.pid}-${randomBytes(4).toString("hex")}`;
      await writeFile(draft, claimText(process.pid));
      try {
        await link(draft, path);
        return claimOf(user, path, claimText);
      } catch (error) {
        if (code(error) !== "EEXIST") throw error;
      } finally {
        await rm(draft, { force: true });
      }
      const holder = Number.parseInt(await readFile(path, "utf8").catch(() => ""), 10);
      if (Number.isInteger(holder) && holder > 0 && processAlive(holder)) break;
      // stale, or still being written (no pid yet): move it aside, then look at what was moved
      const aside = `${path}.stale-${process.pid}-${attempt}`;
      try {
        await rename(path, aside);
      } catch (error) {
        if (code(error) === "ENOENT") continue;
        throw error;
      }
      const moved = Number.parseInt(await readFile(aside, "utf8").catch(() => ""), 10);
      if (Number.isInteger(moved) && moved > 0 && processAlive(moved)) {
        // a live claim was taken in between: put it back unless a newer one already stands
        await link(aside, path).catch(() => undefined);
        await rm(aside, { force: true });
        break;
      }
      await rm(aside, { force: true });
    }
  }
}

function claimOf(user: string, path: string, claimText: (pid: number) => string): EngineUserClaim {
  // what this claim last wrote: once its holder has died, another worker may take the user over (its claim then
  // says otherwise), and releasing this one must leave that one be
  let written = claimText(process.pid);
  return {
    user,
    // written aside, then renamed over the claim: a sweep reading it meanwhile never finds it empty (and the pod dead)
    holdFor: async (pid) => {
      const aside = `${path}.hold-${process.pid}-${randomBytes(4).toString("hex")}`;
      const text = claimText(pid);
      await writeFile(aside, text);
      await rename(aside, path);
      written = text;
    },
    release: () => removeClaimIf(path, (text) => text === written),
  };
}

/**
 * Removes the claim at `path` only while `ours` says it is still the one to remove. A pod's claim outlives its
 * holder for a while (its worker drains the pod's events and cleans up first), and meanwhile another worker takes
 * the user over as a dead holder's: removing that claim would leave a live pod claimless, and the next pod started on
 * the host would sweep its cgroup as a dead pod's, killing its engine. Moved aside before it is removed, so that a
 * claim taken over between the read and the move is put back.
 */
async function removeClaimIf(path: string, ours: (text: string) => boolean): Promise<void> {
  const text = await readFile(path, "utf8").catch(() => null);
  if (text === null || !ours(text)) return;
  const aside = `${path}.release-${process.pid}-${randomBytes(4).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if (code(error) === "ENOENT") return;
    throw error;
  }
  const moved = await readFile(aside, "utf8").catch(() => "");
  // another's after all: put back unless a newer one already stands
  if (!ours(moved)) await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}

/** The pods that hold a claim in `dir` and still live (their holder runs), by pod id. */
export async function livePodClaims(dir: string = DEFAULT_CLAIMS_DIR): Promise<Set<string>> {
  const live = new Set<string>();
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!/^arena-engine-\d+$/.test(name)) continue;
    const [pid, podId] = (await readFile(join(dir, name), "utf8").catch(() => "")).trim().split(" ");
    const holder = Number.parseInt(pid ?? "", 10);
    if (podId && Number.isInteger(holder) && holder > 0 && processAlive(holder)) live.add(podId);
  }
  return live;
}

/**
 * Releases the claim that names `podId`, whoever made it: a pod outlives the worker that claimed its user, and the
 * worker that sees it end (re-attached, or stopping an orphan) hands the user back. A claim naming another pod is
 * left alone.
 */
export async function releasePodClaim(podId: string, dir: string = DEFAULT_CLAIMS_DIR): Promise<void> {
  const names = (text: string) => text.trim().split(" ")[1] === podId;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (!/^arena-engine-\d+$/.test(name)) continue;
    await removeClaimIf(join(dir, name), names);
  }
}
