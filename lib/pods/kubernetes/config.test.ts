import { describe, expect, it } from "vitest";
import { kubernetesBackendConfigFromEnv, parseKubernetesBackendConfig } from "./config";

describe("Kubernetes backend config", () => {
  it("fills defaults around the required fields", () => {
    const c = parseKubernetesBackendConfig({
      agentImage: "arena:1",
      storage: [{ name: "s", workerRoot: "/data", source: { kind: "pvc", claimName: "s" } }],
    });
    expect(c).toMatchObject({
      namespace: "speculator-arena-evals",
      gpuResourceName: "nvidia.com/gpu",
      runAsUser: 1000,
    });
    expect(c.vllmImage).toBeUndefined();
  });

  it("names what is wrong", () => {
    expect(() => parseKubernetesBackendConfig({ storage: [] })).toThrow(/agentImage.*storage/);
    expect(() =>
      parseKubernetesBackendConfig({
        agentImage: "a",
        namespace: "Bad_NS",
        storage: [{ name: "s", workerRoot: "relative", source: { kind: "pvc", claimName: "s" } }],
      }),
    ).toThrow(/namespace: must be a DNS-1123 label.*storage\.0\.workerRoot: must be an absolute path/);
    expect(() =>
      parseKubernetesBackendConfig({
        agentImage: "a",
        runAsUser: 0,
        storage: [{ name: "s", workerRoot: "/d", source: { kind: "pvc", claimName: "s" } }],
      }),
    ).toThrow(/runAsUser/);
  });

  it("reads the variables the k8s manifests set", () => {
    const c = kubernetesBackendConfigFromEnv({
      KUBE_NAMESPACE: "evals",
      KUBE_AGENT_IMAGE: "arena:2",
      KUBE_VLLM_IMAGE: "",
      KUBE_STORAGE_CLAIM: "arena-storage",
      KUBE_STORAGE_WORKER_ROOT: "/var/lib/arena",
      KUBE_MODELS_HOST_PATH: "/mnt/models",
      KUBE_UNSCHEDULABLE_GRACE_SECONDS: "300",
      KUBE_NODE_SELECTOR: "nvidia.com/gpu.product=NVIDIA-H200, pool=gpu",
      KUBE_TOLERATIONS: '[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]',
    });
    expect(c.nodeSelector).toEqual({ "nvidia.com/gpu.product": "NVIDIA-H200", pool: "gpu" });
    expect(c.tolerations).toEqual([{ key: "nvidia.com/gpu", operator: "Exists", effect: "NoSchedule" }]);
    expect(c.namespace).toBe("evals");
    expect(c.vllmImage).toBeUndefined();
    expect(c.unschedulableGraceSeconds).toBe(300);
    expect(c.storage).toEqual([
      { name: "arena-storage", workerRoot: "/var/lib/arena", source: { kind: "pvc", claimName: "arena-storage" } },
      { name: "arena-models", workerRoot: "/var/lib/arena-models", source: { kind: "hostPath", path: "/mnt/models" } },
    ]);
    expect(c.engineRuntime).toBe("vllm");
    expect(() => kubernetesBackendConfigFromEnv({})).toThrow(/agentImage/);
    expect(() => kubernetesBackendConfigFromEnv({ KUBE_NODE_SELECTOR: "pool" })).toThrow(/KUBE_NODE_SELECTOR/);
    expect(() => kubernetesBackendConfigFromEnv({ KUBE_TOLERATIONS: "[oops" })).toThrow(/KUBE_TOLERATIONS/);
  });

  it("reads the two containers' settings, and takes the runtime from the worker's own ENGINE_RUNTIME", () => {
    const base = {
      KUBE_AGENT_IMAGE: "arena:2",
      KUBE_STORAGE_CLAIM: "arena-storage",
      KUBE_STORAGE_WORKER_ROOT: "/var/lib/arena",
    };
    const c = kubernetesBackendConfigFromEnv(
      {
        ...base,
        KUBE_AGENT_CPU: "4",
        KUBE_AGENT_MEMORY: "16Gi",
        KUBE_ENGINE_CPU: "12",
        KUBE_ENGINE_MEMORY: "200Gi",
        KUBE_ENGINE_RUN_AS_USER: "3000",
        KUBE_ENGINE_RUN_AS_GROUP: "3001",
        KUBE_RUNTIME_CLASS: "gvisor",
        KUBE_SHM_SIZE: "64Gi",
      },
      { engineRuntime: "sim", simSpeed: 4 },
    );
    expect(c).toMatchObject({
      agentCpu: "4",
      agentMemory: "16Gi",
      engineCpu: "12",
      engineMemory: "200Gi",
      engineRunAsUser: 3000,
      engineRunAsGroup: 3001,
      runtimeClassName: "gvisor",
      shmSizeLimit: "64Gi",
      engineRuntime: "sim",
      simSpeed: 4,
    });
    // the simulated engine's speed only on its own runtime
    expect(kubernetesBackendConfigFromEnv(base, { engineRuntime: "vllm", simSpeed: 4 }).simSpeed).toBeUndefined();
    expect(() => kubernetesBackendConfigFromEnv({ ...base, KUBE_AGENT_CPU: "1.5" })).toThrow(
      /agentCpu: must be a whole/,
    );
    expect(() => kubernetesBackendConfigFromEnv({ ...base, KUBE_ENGINE_MEMORY: "lots" })).toThrow(/engineMemory/);
    expect(() => kubernetesBackendConfigFromEnv({ ...base, KUBE_ENGINE_RUN_AS_USER: "1000" })).toThrow(
      /engineRunAsUser: the engine container's uid must not be the agent's/,
    );
  });
});
