import { describe, expect, it } from "vitest";
import { describeMissing, missingProperties, SANDBOX_PROPERTIES, SANDBOX_PROPERTY_IDS } from "./properties";

describe("the sandbox's properties", () => {
  it("are listed once each, in the order of their ids, each with the protocol's section and a way to be shown", () => {
    expect(SANDBOX_PROPERTIES.map((p) => p.id)).toEqual([...SANDBOX_PROPERTY_IDS]);
    for (const p of SANDBOX_PROPERTIES) {
      expect(["3", "4", "7", "9"]).toContain(p.section);
      // a property is shown by the probe's attempts, or checked from outside the pod, or both
      expect(p.probe.length > 0 || (p.outside ?? "") !== "", p.id).toBe(true);
    }
  });

  it("cover every promise the protocol makes of the engine's environment", () => {
    expect(SANDBOX_PROPERTY_IDS).toEqual(
      expect.arrayContaining([
        "network-loopback-only",
        "host-processes-hidden",
        "processes-unsignalable",
        "private-tmp",
        "no-other-inputs",
        "no-pool",
        "no-arena-state",
        "memory-limit",
        "process-limit",
        "leftovers-cleared",
        "inputs-deleted",
      ]),
    );
  });

  it("a host without namespaces loses every property that rests on them, each with the reason", () => {
    const why = "unshare could not make the pod's namespaces: Operation not permitted";
    const missing = missingProperties({ namespaces: why, "engine-user": why });
    expect(missing.map((m) => m.property)).toEqual([
      "network-loopback-only",
      "host-processes-hidden",
      "processes-unsignalable",
      "private-tmp",
      "no-other-inputs",
      "no-pool",
      "no-arena-state",
      "arena-code-unwritable",
      "memory-limit",
      "process-limit",
      "leftovers-cleared",
      "pod-dies-with-agent",
    ]);
    expect(new Set(missing.map((m) => m.why))).toEqual(new Set([why]));
    // deleting the sealed inputs rests on nothing the host may lack
    expect(
      missingProperties({ namespaces: why, "engine-user": why, "cgroup-memory": "x", "cgroup-pids": "y" }),
    ).not.toContainEqual(expect.objectContaining({ property: "inputs-deleted" }));
  });

  it("a host without a pids controller loses the process limit alone", () => {
    expect(missingProperties({ "cgroup-pids": "no pids cgroup controller is mounted" })).toEqual([
      { property: "process-limit", why: "no pids cgroup controller is mounted" },
    ]);
  });

  it("are named in the evaluation's log, grouped by reason, or said to hold", () => {
    expect(describeMissing([])).toBe("the engine sandbox holds every property it promises");
    expect(
      describeMissing([
        { property: "memory-limit", why: "setpriv (util-linux) is not installed" },
        { property: "process-limit", why: "setpriv (util-linux) is not installed" },
        { property: "pod-dies-with-agent", why: "the worker does not run as root" },
      ]),
    ).toBe(
      `the engine sandbox lacks 3 of its ${SANDBOX_PROPERTIES.length} properties: memory-limit, process-limit (setpriv (util-linux) is not installed); pod-dies-with-agent (the worker does not run as root)`,
    );
  });
});
