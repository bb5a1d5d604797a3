import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cgroupLayout, createPodCgroup, podCgroupPlan } from "./cgroups";

// This machine's and CI's mountinfo: cgroup v1 hierarchies per controller, a cgroup2 at unified with no controller.
const HYBRID = `31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw`;

// A fresh Debian 12 host: systemd mounts the one cgroup2 hierarchy at /sys/fs/cgroup.
const DEBIAN = `22 1 254:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw,errors=remount-ro
35 24 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot`;

const controllers = (offered: Record<string, string>) => (root: string) => offered[root] ?? null;

describe("where the memory and pids controllers are", () => {
  it("finds v1's hierarchies on a host whose cgroup2 offers neither", () => {
    expect(cgroupLayout(HYBRID, controllers({ "/sys/fs/cgroup/unified": "" }))).toEqual({
      version: 1,
      memory: "/sys/fs/cgroup/memory",
      pids: "/sys/fs/cgroup/pids",
    });
  });

  it("finds v2 at /sys/fs/cgroup on a fresh Debian host", () => {
    const layout = cgroupLayout(
      DEBIAN,
      controllers({ "/sys/fs/cgroup": "cpuset cpu io memory hugetlb pids rdma misc\n" }),
    );
    expect(layout).toEqual({ version: 2, root: "/sys/fs/cgroup", controllers: ["memory", "pids"] });
  });

  it("keeps a v2 that offers one controller where v1 has none, and finds nothing where neither is mounted", () => {
    expect(cgroupLayout(DEBIAN, controllers({ "/sys/fs/cgroup": "cpu memory" }))).toEqual({
      version: 2,
      root: "/sys/fs/cgroup",
      controllers: ["memory"],
    });
    expect(cgroupLayout("22 1 254:1 / / rw - ext4 /dev/vda1 rw", controllers({}))).toBeNull();
  });

  it("reads a mount point mountinfo escaped (a space is \\040)", () => {
    const line = "39 31 0:36 / /sys/fs/cgroup/my\\040pids rw,relatime - cgroup cgroup rw,pids";
    expect(cgroupLayout(line, controllers({}))).toEqual({ version: 1, memory: null, pids: "/sys/fs/cgroup/my pids" });
  });
});

describe("a pod's cgroup", () => {
  const limits = { memoryBytes: 3 * 2 ** 30, pids: 4096 };

  it("on v1: one folder per hierarchy, the memory limit before memsw (which may not be below it), pids.max", () => {
    const plan = podCgroupPlan({ version: 1, memory: "/cg/memory", pids: "/cg/pids" }, "local-e1-2", limits);
    expect(plan.create).toEqual([
      "/cg/memory/arena-pods",
      "/cg/memory/arena-pods/local-e1-2",
      "/cg/pids/arena-pods",
      "/cg/pids/arena-pods/local-e1-2",
    ]);
    expect(plan.writes).toEqual([
      { path: "/cg/memory/arena-pods/local-e1-2/memory.limit_in_bytes", value: "3221225472" },
      { path: "/cg/memory/arena-pods/local-e1-2/memory.memsw.limit_in_bytes", value: "3221225472", optional: true },
      { path: "/cg/pids/arena-pods/local-e1-2/pids.max", value: "4096" },
    ]);
    expect(plan.enter).toEqual(["/cg/memory/arena-pods/local-e1-2", "/cg/pids/arena-pods/local-e1-2"]);
    expect(plan.limits).toEqual(["memory", "pids"]);
  });

  it("on v2: the controllers handed down first, then memory.max, no swap beyond it, pids.max", () => {
    const plan = podCgroupPlan({ version: 2, root: "/cg", controllers: ["memory", "pids"] }, "p", limits);
    expect(plan.create).toEqual(["/cg/arena-pods"]);
    expect(plan.writes).toEqual([
      { path: "/cg/cgroup.subtree_control", value: "+memory +pids" },
      { path: "/cg/arena-pods/cgroup.subtree_control", value: "+memory +pids" },
      { path: "/cg/arena-pods/p/memory.max", value: "3221225472" },
      { path: "/cg/arena-pods/p/memory.swap.max", value: "0", optional: true },
      { path: "/cg/arena-pods/p/pids.max", value: "4096" },
    ]);
    expect(plan.enter).toEqual(["/cg/arena-pods/p"]);
  });

  it("sets only the limits a layout offers, and refuses a pod id that is not a plain name", () => {
    expect(podCgroupPlan({ version: 1, memory: null, pids: "/cg/pids" }, "p", limits).limits).toEqual(["pids"]);
    expect(() => podCgroupPlan({ version: 1, memory: "/m", pids: null }, "../escape", limits)).toThrow(/unfit/);
  });

  describe("made on a folder tree", () => {
    let root: string;
    beforeAll(async () => {
      root = await mkdtemp(join(tmpdir(), "cgroup-plan-"));
    });
    afterAll(() => rm(root, { recursive: true, force: true }));

    it("writes each limit file, skips an optional one the kernel does not offer, and makes the folders to enter", async () => {
      const plan = podCgroupPlan({ version: 1, memory: join(root, "memory"), pids: join(root, "pids") }, "p", limits);
      // a kernel without swap accounting has no memsw file; the limit files exist once the folder does
      await mkdir(join(root, "memory", "arena-pods", "p"), { recursive: true });
      await writeFile(join(root, "memory", "arena-pods", "p", "memory.limit_in_bytes"), "9223372036854771712\n");
      await mkdir(join(root, "pids", "arena-pods", "p"), { recursive: true });
      await createPodCgroup(plan);
      expect(await readFile(join(root, "memory", "arena-pods", "p", "memory.limit_in_bytes"), "utf8")).toBe(
        "3221225472",
      );
      await expect(readFile(join(root, "memory", "arena-pods", "p", "memory.memsw.limit_in_bytes"))).rejects.toThrow();
      expect(await readFile(join(root, "pids", "arena-pods", "p", "pids.max"), "utf8")).toBe("4096");
    });
  });
});
