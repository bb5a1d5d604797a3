import type { V1Container, V1Pod } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { currentProtocol } from "@/lib/protocol";
import type { PodLaunch } from "../types";
import { parseKubernetesBackendConfig } from "./config";
import {
  buildEvaluationNetworkPolicy,
  buildEvaluationPod,
  EVALUATION_POD_SELECTOR,
  evaluationPodName,
  POD_PATHS,
  resolveStoragePath,
} from "./pod-spec";

const config = parseKubernetesBackendConfig({
  namespace: "arena-evals",
  agentImage: "registry.example/arena:1.0",
  storage: [
    { name: "arena-storage", workerRoot: "/var/lib/arena", source: { kind: "pvc", claimName: "arena-storage" } },
    { name: "arena-models", workerRoot: "/var/lib/arena/models", source: { kind: "hostPath", path: "/mnt/models" } },
  ],
});

const launch: PodLaunch = {
  evaluationId: "cmf3x9z0k0001",
  attempt: 2,
  taskId: "qwen3-8b",
  profile: "full",
  seed: 1234,
  engineDir: "/var/lib/arena/sealed/cmf3x9z0k0001/engine",
  speculatorDir: "/var/lib/arena/sealed/cmf3x9z0k0001/speculator",
  targetDir: "/var/lib/arena/models/Qwen/Qwen3-8B",
  stockEngineDir: "/var/lib/arena/stock/vllm",
  deadlineSeconds: 5400,
};

function containers(pod: V1Pod): V1Container[] {
  return [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])];
}

describe("buildEvaluationPod", () => {
  const pod = buildEvaluationPod(launch, config);
  const agent = pod.spec?.containers[0] as V1Container;
  const init = pod.spec?.initContainers?.[0] as V1Container;

  it("runs the pinned vLLM image with one GPU, once, within the deadline", () => {
    expect(pod.spec?.containers).toHaveLength(1);
    expect(agent.image).toBe(currentProtocol().image.reference);
    expect(agent.resources?.limits?.["nvidia.com/gpu"]).toBe("1");
    expect(agent.resources?.requests?.["nvidia.com/gpu"]).toBe("1");
    expect(pod.spec?.restartPolicy).toBe("Never");
    expect(pod.spec?.activeDeadlineSeconds).toBe(5400);
    const custom = buildEvaluationPod(launch, {
      ...config,
      vllmImage: "mirror.example/vllm@sha256:abc",
      gpuResourceName: "amd.com/gpu",
    });
    expect(custom.spec?.containers[0]?.image).toBe("mirror.example/vllm@sha256:abc");
    expect(custom.spec?.containers[0]?.resources?.limits?.["amd.com/gpu"]).toBe("1");
  });

  it("delivers the agent through an init container from the arena image into a shared volume", () => {
    expect(init.image).toBe("registry.example/arena:1.0");
    expect(init.command).toEqual(["cp", "-R", "/opt/arena/pod-agent/.", "/arena/agent/"]);
    expect(init.volumeMounts).toEqual([{ name: "agent", mountPath: POD_PATHS.agent }]);
    expect(agent.command).toEqual(config.agentCommand);
    expect(agent.volumeMounts).toContainEqual({ name: "agent", mountPath: POD_PATHS.agent, readOnly: true });
    expect(pod.spec?.volumes).toContainEqual({ name: "agent", emptyDir: { sizeLimit: "1Gi" } });
  });

  it("runs every container unprivileged: non-root, no escalation, no capabilities, RuntimeDefault seccomp, read-only root", () => {
    expect(pod.spec?.securityContext).toMatchObject({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      seccompProfile: { type: "RuntimeDefault" },
    });
    for (const c of containers(pod)) {
      expect(c.securityContext, c.name).toEqual({
        runAsNonRoot: true,
        runAsUser: 1000,
        runAsGroup: 1000,
        allowPrivilegeEscalation: false,
        privileged: false,
        readOnlyRootFilesystem: true,
        capabilities: { drop: ["ALL"] },
        seccompProfile: { type: "RuntimeDefault" },
      });
    }
    expect(pod.spec?.hostNetwork).toBe(false);
    expect(pod.spec?.hostPID).toBe(false);
    expect(pod.spec?.hostIPC).toBe(false);
  });

  it("gives the pod no service-account token and no service links", () => {
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.enableServiceLinks).toBe(false);
  });

  it("mounts target, speculator, engine and stock engine read-only by subPath on the right volume", () => {
    const sealed = (agent.volumeMounts ?? []).filter((m) => m.name === "arena-storage" || m.name === "arena-models");
    expect(sealed).toEqual([
      { name: "arena-storage", mountPath: POD_PATHS.engine, subPath: "sealed/cmf3x9z0k0001/engine", readOnly: true },
      {
        name: "arena-storage",
        mountPath: POD_PATHS.speculator,
        subPath: "sealed/cmf3x9z0k0001/speculator",
        readOnly: true,
      },
      { name: "arena-models", mountPath: POD_PATHS.target, subPath: "Qwen/Qwen3-8B", readOnly: true },
      { name: "arena-storage", mountPath: POD_PATHS.stockEngine, subPath: "stock/vllm", readOnly: true },
    ]);
    expect(pod.spec?.volumes).toContainEqual({
      name: "arena-storage",
      persistentVolumeClaim: { claimName: "arena-storage", readOnly: true },
    });
    expect(pod.spec?.volumes).toContainEqual({
      name: "arena-models",
      hostPath: { path: "/mnt/models", type: "Directory" },
    });
    // Only the scratch areas are writable.
    const writable = (agent.volumeMounts ?? []).filter((m) => !m.readOnly).map((m) => m.mountPath);
    expect(writable.sort()).toEqual(["/dev/shm", "/scratch", "/tmp"]);
  });

  it("mounts a test evaluation's hidden pool read-only as one file and tells the agent where", () => {
    const withPool = buildEvaluationPod({ ...launch, poolPath: "/var/lib/arena/pools/test.jsonl" }, config);
    const main = withPool.spec?.containers[0] as V1Container;
    expect(main.volumeMounts).toContainEqual({
      name: "arena-storage",
      mountPath: POD_PATHS.pool,
      subPath: "pools/test.jsonl",
      readOnly: true,
    });
    expect(main.env).toContainEqual({ name: "ARENA_POOL_PATH", value: POD_PATHS.pool });
    // A dev evaluation plays the pool the agent ships with: nothing mounted, nothing named.
    expect(agent.env?.some((e) => e.name === "ARENA_POOL_PATH")).toBe(false);
  });

  it("backs /dev/shm with memory and gives scratch an emptyDir", () => {
    expect(agent.volumeMounts).toContainEqual({ name: "dshm", mountPath: "/dev/shm" });
    expect(pod.spec?.volumes).toContainEqual({ name: "dshm", emptyDir: { medium: "Memory", sizeLimit: "32Gi" } });
    expect(pod.spec?.volumes).toContainEqual({ name: "scratch", emptyDir: { sizeLimit: "100Gi" } });
  });

  it("labels the pod with its evaluation and attempt, and the role the NetworkPolicy selects", () => {
    expect(pod.metadata?.namespace).toBe("arena-evals");
    expect(pod.metadata?.labels).toEqual({
      "app.kubernetes.io/name": "speculator-arena",
      "arena.role": "evaluation",
      "arena.evaluation-id": "cmf3x9z0k0001",
      "arena.attempt": "2",
    });
    const policy = buildEvaluationNetworkPolicy(config);
    for (const [k, v] of Object.entries(policy.spec?.podSelector.matchLabels ?? {})) {
      expect(pod.metadata?.labels?.[k]).toBe(v);
    }
    expect(EVALUATION_POD_SELECTOR).toBe("app.kubernetes.io/name=speculator-arena,arena.role=evaluation");
  });

  it("tells the agent its evaluation, task, profile, seed and paths", () => {
    const env = Object.fromEntries((agent.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      ARENA_EVALUATION_ID: "cmf3x9z0k0001",
      ARENA_ATTEMPT: "2",
      ARENA_TASK: "qwen3-8b",
      ARENA_PROFILE: "full",
      ARENA_SEED: "1234",
      ARENA_ENGINE_DIR: POD_PATHS.engine,
      ARENA_SPECULATOR_DIR: POD_PATHS.speculator,
      ARENA_TARGET_DIR: POD_PATHS.target,
      ARENA_STOCK_ENGINE_DIR: POD_PATHS.stockEngine,
      HF_HUB_OFFLINE: "1",
    });
    // With a read-only root, every place a tool writes to must be on a writable mount.
    for (const key of ["HOME", "XDG_CACHE_HOME", "HF_HOME", "PYTHONUSERBASE", "TRITON_CACHE_DIR", "TMPDIR"]) {
      expect(env[key], key).toMatch(/^\/(scratch|tmp)(\/|$)/);
    }
  });

  it("names pods uniquely per attempt within 63 characters", () => {
    const a = evaluationPodName(config, { evaluationId: "cmf3x9z0k0001", attempt: 1 });
    const b = evaluationPodName(config, { evaluationId: "cmf3x9z0k0001", attempt: 2 });
    expect(a).not.toBe(b);
    expect(a).toMatch(/^arena-eval-cmf3x9z0k0001-a1-[0-9a-f]{8}$/);
    const long = evaluationPodName(config, { evaluationId: `X_${"y".repeat(61)}`, attempt: 12 });
    expect(long.length).toBeLessThanOrEqual(63);
    expect(long).toMatch(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/);
  });

  it("refuses inputs it cannot express safely, naming them", () => {
    expect(() => buildEvaluationPod({ ...launch, engineDir: "/etc/passwd" }, config)).toThrow(
      /engineDir "\/etc\/passwd" is not under any configured storage volume root/,
    );
    expect(() => buildEvaluationPod({ ...launch, speculatorDir: "/var/lib/arena/../../etc" }, config)).toThrow(
      /speculatorDir/,
    );
    expect(() => buildEvaluationPod({ ...launch, targetDir: "/var/lib/arena" }, config)).toThrow(/targetDir/);
    expect(() => buildEvaluationPod({ ...launch, evaluationId: "has space" }, config)).toThrow(
      /evaluationId "has space"/,
    );
    expect(() => buildEvaluationPod({ ...launch, deadlineSeconds: 0 }, config)).toThrow(/deadlineSeconds/);
  });

  it("resolves the deepest storage root", () => {
    expect(resolveStoragePath(config.storage, "/var/lib/arena/models/x", "f").volume.name).toBe("arena-models");
    expect(resolveStoragePath(config.storage, "/var/lib/arena/modelsx/y", "f")).toMatchObject({
      volume: { name: "arena-storage" },
      subPath: "modelsx/y",
    });
  });
});

describe("buildEvaluationNetworkPolicy", () => {
  it("denies all ingress and egress for evaluation pods", () => {
    const policy = buildEvaluationNetworkPolicy(config);
    expect(policy.metadata).toMatchObject({ name: "speculator-arena-evaluation-deny-all", namespace: "arena-evals" });
    expect(policy.spec).toEqual({
      podSelector: { matchLabels: { "app.kubernetes.io/name": "speculator-arena", "arena.role": "evaluation" } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [],
    });
  });
});
