import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { claimEngineUser, livePodClaims, releasePodClaim } from "./engine-user-claims";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "engine-claims-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has already exited. */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("engine user claims shared by a host's local pods", () => {
  it("give each live pod its own user and free a user when its pod ends", async () => {
    const a = await claimEngineUser(dir);
    const b = await claimEngineUser(dir);
    expect([a.user, b.user]).toEqual(["arena-engine-1", "arena-engine-2"]);
    await a.release();
    expect((await claimEngineUser(dir)).user).toBe("arena-engine-1");
    expect((await claimEngineUser(dir)).user).toBe("arena-engine-3");
  });

  it("record the pod's agent as the holder, and take over a user whose holder died", async () => {
    const a = await claimEngineUser(dir);
    const gone = deadPid();
    await a.holdFor(gone);
    expect(await readFile(join(dir, "arena-engine-1"), "utf8")).toBe(String(gone));
    const b = await claimEngineUser(dir);
    expect(b.user).toBe("arena-engine-1");
    expect(await readFile(join(dir, "arena-engine-1"), "utf8")).toBe(String(process.pid));
  });

  it("skip a user held by a live process even when its claim file came from another worker", async () => {
    await writeFile(join(dir, "arena-engine-1"), String(process.ppid));
    await writeFile(join(dir, "arena-engine-2"), String(deadPid()));
    expect((await claimEngineUser(dir)).user).toBe("arena-engine-2");
  });

  it("never hand one user to two claims made at once", async () => {
    const claims = await Promise.all(Array.from({ length: 20 }, () => claimEngineUser(dir)));
    expect(new Set(claims.map((c) => c.user)).size).toBe(20);
  });

  it("name the pods that hold them while their holder lives, for the sweep of dead pods' cgroups", async () => {
    const a = await claimEngineUser(dir, "local-e1-1");
    const b = await claimEngineUser(dir, "local-e2-1");
    await b.holdFor(deadPid());
    expect(await readFile(join(dir, a.user), "utf8")).toBe(`${process.pid} local-e1-1`);
    expect(await livePodClaims(dir)).toEqual(new Set(["local-e1-1"]));
    // a claim naming a dead pod is taken over like any other; a claim that names no pod is no pod's
    expect((await claimEngineUser(dir, "local-e3-1")).user).toBe(b.user);
    await claimEngineUser(dir);
    expect(await livePodClaims(dir)).toEqual(new Set(["local-e1-1", "local-e3-1"]));
  });

  it("are released only while still theirs: a user taken over once its pod ended stays the new pod's", async () => {
    // a pod has ended; its worker drains its events and cleans up before it releases the user
    const ended = await claimEngineUser(dir, "local-e1-1");
    await ended.holdFor(deadPid());
    // meanwhile another worker's pod takes the user over, as a dead holder's
    const live = await claimEngineUser(dir, "local-e2-1");
    await live.holdFor(process.pid);
    expect(live.user).toBe(ended.user);
    // the first worker's late release, or one by pod id, must leave it: a claimless live pod is swept as a dead one
    await ended.release();
    await releasePodClaim("local-e1-1", dir);
    expect(await livePodClaims(dir)).toEqual(new Set(["local-e2-1"]));
    expect(await readFile(join(dir, live.user), "utf8")).toBe(`${process.pid} local-e2-1`);
    expect((await claimEngineUser(dir, "local-e3-1")).user).not.toBe(live.user);
    await live.release();
    expect(await livePodClaims(dir)).toEqual(new Set(["local-e3-1"]));
  });

  it("are never seen empty, while made or handed to their pod: a sweep never takes a live pod for a dead one", async () => {
    // another worker's cgroup sweep reads every claim as it is written; an empty one would mark its pod dead
    let empty = 0;
    let reading = true;
    const reader = (async () => {
      while (reading) {
        for (const name of await readdir(dir)) {
          if (!/^arena-engine-\d+$/.test(name)) continue;
          if ((await readFile(join(dir, name), "utf8").catch(() => null)) === "") empty += 1;
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    for (let i = 0; i < 150; i++) {
      const claim = await claimEngineUser(dir, `local-pod-${i}`);
      await claim.holdFor(process.pid);
      expect(await livePodClaims(dir)).toEqual(new Set([`local-pod-${i}`]));
      await (i % 2 === 0 ? claim.release() : releasePodClaim(`local-pod-${i}`, dir));
    }
    reading = false;
    await reader;
    expect(empty).toBe(0);
    expect(await readdir(dir)).toEqual([]);
  });
});
