import { spawnSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, type V1Pod } from "@kubernetes/client-node";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../testing/until";
import { livePidsOf } from "../../agent/engine-user";
import { probeHostSandbox } from "../../sandbox/host-sandbox";
import { FakeKubeApi } from "./fake-kube-api";
import { KubeletStandIn } from "./kubelet-stand-in";

// Deleting a pod ends every process of its containers, as a kubelet does, whether or not the node has cgroups: a
// container whose PID 1 runs under the pod's uid (which clears unshare's parent-death signal) and leaves a child.
const POD_UID = 2001;
const IMAGE = "arena-test/stand-in:1";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  // a failed run leaves no sleeper behind for the next
  spawnSync("pkill", ["-KILL", "-u", String(POD_UID)]);
  for (const f of cleanup.splice(0).reverse()) await f();
});

function sleeperPod(name: string): V1Pod {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name },
    spec: {
      restartPolicy: "Never",
      securityContext: { runAsUser: POD_UID, runAsGroup: POD_UID },
      containers: [
        {
          name: "sleeper",
          image: IMAGE,
          command: ["sh", "-c", "sleep 600 & echo started; exec sleep 601"],
          resources: { limits: { memory: "64Mi" } },
        },
      ],
    },
  };
}

describe("the stand-in kubelet, when a pod is deleted", () => {
  for (const withCgroups of [false, true]) {
    it(`kills the containers' processes under the pod's uid (${withCgroups ? "with" : "without"} cgroups)`, async () => {
      expect(process.getuid?.(), "the stand-in kubelet runs as root").toBe(0);
      const base = await mkdtemp(join(tmpdir(), "arena-kubelet-"));
      cleanup.push(() => rm(base, { recursive: true, force: true }));
      const api = await FakeKubeApi.start();
      cleanup.push(() => api.close());
      const host = await probeHostSandbox();
      if (withCgroups) expect(host.cgroups, "this machine's memory and pids controllers").not.toBeNull();
      const kubelet = new KubeletStandIn(api, {
        images: { [IMAGE]: {} },
        claims: {},
        root: join(base, "node"),
        cgroups: withCgroups ? (host.cgroups ?? null) : null,
        podPidsLimit: 64,
      });
      kubelet.start();
      cleanup.push(() => kubelet.stop());
      const core = api.kubeConfig().makeApiClient(CoreV1Api);
      const name = `sleeper-${withCgroups ? "cg" : "plain"}`;
      await core.createNamespacedPod({ namespace: "arena", body: sleeperPod(name) });

      await until(
        async () => (kubelet.output(name, "sleeper").some((l) => l.line === "started") ? true : undefined),
        20_000,
        50,
      );
      await until(async () => ((await livePidsOf(POD_UID)).length === 2 ? true : undefined), 5_000, 50);
      expect((await core.readNamespacedPod({ namespace: "arena", name })).status?.phase).toBe("Running");

      await core.deleteNamespacedPod({ namespace: "arena", name });
      const gone = await until(async () => ((await livePidsOf(POD_UID)).length === 0 ? true : undefined), 10_000, 50)
        .then(() => true)
        .catch(() => false);
      expect(gone, `processes of uid ${POD_UID} left: ${(await livePidsOf(POD_UID)).join(", ")}`).toBe(true);
      await kubelet.stop();
      expect(kubelet.errors).toEqual([]);
    });
  }
});
