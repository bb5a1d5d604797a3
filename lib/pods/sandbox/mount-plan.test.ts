import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { enterPodSandbox } from "./enter-pod-sandbox";
import { type MountOp, mountCommands, PRIVATE_COVERS, podMountPlan } from "./mount-plan";

const binds = [
  { name: "engine", source: "/data/evaluations/e1/a1/engine", kind: "dir", readOnly: true },
  { name: "scratch", source: "/tmp/t/data/local-pods/pods/p/scratch", kind: "dir", readOnly: false },
  { name: "pool", source: "/data/pools/test.jsonl", kind: "file", readOnly: true },
] as const;

const plan = (stageDir: string, hide: string[] = []) =>
  podMountPlan({ stageDir, covers: PRIVATE_COVERS, binds: [...binds], hide });

const targets = (ops: MountOp[], kind: MountOp["op"]) =>
  ops.filter((o) => o.op === kind).map((o) => ("target" in o ? o.target : o.path));

describe("a pod's mount plan", () => {
  it("binds each input read-only at its pod-local path in the new /run, the scratch writable, the pool as a file", () => {
    const ops = plan("/data/local-pods/pods/p/stage");
    const run = "/data/local-pods/pods/p/stage/cover-0";
    expect(ops.filter((o) => o.op === "bind")).toEqual([
      { op: "bind", source: binds[0].source, target: `${run}/arena-pod/engine`, readOnly: true },
      { op: "bind", source: binds[1].source, target: `${run}/arena-pod/scratch`, readOnly: false },
      { op: "bind", source: binds[2].source, target: `${run}/arena-pod/agent/pool.jsonl`, readOnly: true },
    ]);
    expect(ops).toContainEqual({ op: "touch", path: `${run}/arena-pod/agent/pool.jsonl` });
    // the agent's folder (the pool, the logs) is root's only; the pod's root is open to its engines
    expect(ops).toContainEqual({ op: "mkdir", path: `${run}/arena-pod/agent`, mode: 0o700 });
    expect(ops).toContainEqual({ op: "mkdir", path: `${run}/arena-pod`, mode: 0o755 });
    // every new tmpfs is mounted in the stage before anything is bound into it
    const firstBind = ops.findIndex((o) => o.op === "bind");
    expect(ops.slice(0, firstBind).filter((o) => o.op === "tmpfs")).toHaveLength(PRIVATE_COVERS.length);
  });

  it("moves the cover over the folder that holds the stage last, so the stage is still there for the others", () => {
    expect(targets(plan("/tmp/arena-test/data/local-pods/pods/p/stage"), "move")).toEqual([
      "/run",
      "/var/tmp",
      "/dev/shm",
      "/tmp",
    ]);
    expect(targets(plan("/srv/arena/data/local-pods/pods/p/stage"), "move")).toEqual([
      "/run",
      "/tmp",
      "/var/tmp",
      "/dev/shm",
    ]);
  });

  it("hides the arena's folders with an empty read-only root-only tmpfs after the moves, once each", () => {
    const ops = plan("/srv/arena/.arena/data/local-pods/pods/p/stage", [
      "/srv/arena/.arena/data",
      "/srv/arena/.arena",
      "/tmp/arena-test-data",
    ]);
    const hides = ops.slice(ops.findLastIndex((o) => o.op === "move") + 1);
    // the data folder lies under the state folder, which hides it; a folder under /tmp is gone with the host's /tmp
    expect(hides).toEqual([{ op: "tmpfs", target: "/srv/arena/.arena", mode: 0o700, readOnly: true }]);
  });

  it("needs a cover that holds the pod's own folder", () => {
    expect(() =>
      podMountPlan({ stageDir: "/s", covers: [{ target: "/tmp", mode: 0o1777 }], binds: [], hide: [] }),
    ).toThrow(/no cover holds \/run\/arena-pod/);
  });

  it("says each operation as mount's command lines, never touching the host's mount table", () => {
    expect(mountCommands({ op: "tmpfs", target: "/tmp", mode: 0o1777, readOnly: false })).toEqual([
      ["-n", "-t", "tmpfs", "-o", "mode=1777,nosuid,nodev", "arena-pod", "/tmp"],
    ]);
    expect(mountCommands({ op: "tmpfs", target: "/srv/a", mode: 0o700, readOnly: true })).toEqual([
      ["-n", "-t", "tmpfs", "-o", "mode=0700,nosuid,nodev,ro", "arena-pod", "/srv/a"],
    ]);
    expect(mountCommands({ op: "bind", source: "/a", target: "/b", readOnly: true })).toEqual([
      ["-n", "--bind", "/a", "/b"],
      ["-n", "-o", "remount,bind,nosuid,nodev,ro", "/b"],
    ]);
    expect(mountCommands({ op: "move", source: "/s/cover-1", target: "/tmp" })).toEqual([
      ["-n", "--move", "/s/cover-1", "/tmp"],
    ]);
  });
});

describe("entering the sandbox", () => {
  let stage: string;
  beforeAll(async () => {
    stage = await mkdtemp(join(tmpdir(), "mount-plan-"));
  });
  afterAll(() => rm(stage, { recursive: true, force: true }));

  it("makes the plan's folders with their modes, runs mount for the rest in order, then brings the loopback up", async () => {
    const ops = podMountPlan({ stageDir: stage, covers: PRIVATE_COVERS, binds: [...binds], hide: ["/srv/state"] });
    const ran: string[][] = [];
    await enterPodSandbox({ mounts: ops, loopback: true, cgroups: [], privateDirs: [], logDir: null }, async (c, a) => {
      ran.push([c, ...a]);
    });
    const expected = ops.flatMap((o) => (o.op === "mkdir" || o.op === "touch" ? [] : mountCommands(o)));
    expect(ran).toEqual([...expected.map((args) => ["mount", ...args]), ["ip", "link", "set", "lo", "up"]]);
    expect((await stat(join(stage, "cover-0", "arena-pod", "agent"))).mode & 0o777).toBe(0o700);
    expect((await stat(join(stage, "cover-0", "arena-pod", "engine"))).mode & 0o777).toBe(0o755);
    expect(await readdir(join(stage, "cover-0", "arena-pod", "agent"))).toEqual(["pool.jsonl"]);
  });
});
