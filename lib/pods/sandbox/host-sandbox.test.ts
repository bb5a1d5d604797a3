import { describe, expect, it } from "vitest";
import { probeHostSandbox, UNSHARE_FLAGS } from "./host-sandbox";

const HYBRID = `35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids`;

/** A host whose commands answer as given: each command line is recorded. */
function host(answers: Record<string, { ok: true } | { ok: false; why: string }>) {
  const ran: string[] = [];
  return {
    ran,
    exec: async (command: string, args: readonly string[]) => {
      ran.push([command, ...args].join(" "));
      return answers[command] ?? { ok: true as const };
    },
  };
}

describe("what a host lets a local pod's sandbox be made of", () => {
  it("everything, as root where unshare makes every namespace and both controllers are mounted", async () => {
    const h = host({});
    const found = await probeHostSandbox({
      isRoot: true,
      exec: h.exec,
      mountinfo: async () => HYBRID,
      controllersOf: () => null,
    });
    expect(found.missing).toEqual({});
    expect(found.cgroups).toEqual({ version: 1, memory: "/sys/fs/cgroup/memory", pids: "/sys/fs/cgroup/pids" });
    // the namespaces are tried exactly as a pod gets them, its loopback brought up inside
    expect(h.ran).toContain(["unshare", ...UNSHARE_FLAGS, "--", "ip", "link", "set", "lo", "up"].join(" "));
  });

  it("no namespace and no engine user where unshare fails, with unshare's words", async () => {
    const h = host({ unshare: { ok: false, why: "unshare: unshare failed: Operation not permitted" } });
    const found = await probeHostSandbox({
      isRoot: true,
      exec: h.exec,
      mountinfo: async () => HYBRID,
      controllersOf: () => null,
    });
    const why = "unshare could not make the pod's namespaces: unshare: unshare failed: Operation not permitted";
    expect(found.missing).toEqual({ namespaces: why, "engine-user": why });
  });

  it("no cgroup where setpriv is missing or no controller is mounted", async () => {
    const noSetpriv = await probeHostSandbox({
      isRoot: true,
      exec: host({ setpriv: { ok: false, why: "setpriv is not installed" } }).exec,
      mountinfo: async () => HYBRID,
      controllersOf: () => null,
    });
    expect(noSetpriv.missing["cgroup-memory"]).toBe("setpriv (util-linux) is not installed");
    expect(noSetpriv.missing["engine-user"]).toBe("setpriv (util-linux) is not installed");
    const noControllers = await probeHostSandbox({
      isRoot: true,
      exec: host({}).exec,
      mountinfo: async () => "22 1 254:1 / / rw - ext4 /dev/vda1 rw",
      controllersOf: () => null,
    });
    expect(noControllers.missing).toEqual({
      "cgroup-memory": "no memory cgroup controller is mounted",
      "cgroup-pids": "no pids cgroup controller is mounted",
    });
  });

  it("nothing for a worker that is not root, nor where the sandbox is turned off, and says why", async () => {
    const user = await probeHostSandbox({ isRoot: false, exec: host({}).exec });
    expect(Object.values(user.missing)).toEqual(Array(4).fill("the worker does not run as root"));
    expect(user.setpriv).toBe(true);
    const off = await probeHostSandbox({ off: true, isRoot: true, exec: host({}).exec });
    expect(Object.values(off.missing)).toEqual(Array(4).fill("the sandbox is turned off (ENGINE_SANDBOX=off)"));
  });
});
