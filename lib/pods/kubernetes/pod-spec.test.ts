import type { V1Container } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { currentProtocol } from "@/lib/protocol";
import { agentEnv } from "../agent/env";
import { ENGINE_CONTAINER_PATHS, parseEngineContainerConfig } from "../engine-container/paths";
import type { PodLaunch } from "../types";
import { parseKubernetesBackendConfig } from "./config";
import {
  AGENT_CONTAINER,
  buildEvaluationNetworkPolicy,
  buildEvaluationPod,
  ENGINE_CONTAINER,
  EVALUATION_POD_SELECTOR,
  evaluationPodName,
  LAUNCHER_INIT_CONTAINER,
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

describe("buildEvaluationPod", () => {
  const pod = buildEvaluationPod(launch, config);
  const byName = (name: string) => pod.spec?.containers.find((c) => c.name === name) as V1Container;
  const engine = byName(ENGINE_CONTAINER);
  const agent = byName(AGENT_CONTAINER);
  const init = pod.spec?.initContainers?.[0] as V1Container;
  const envOf = (c: V1Container) => Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
  const paths = (c: V1Container) => (c.volumeMounts ?? []).map((m) => m.mountPath).sort();

  it("runs the engines in a container of their own on the pinned vLLM image with the GPU, the agent in the arena's", () => {
    expect(pod.spec?.containers.map((c) => c.name)).toEqual([ENGINE_CONTAINER, AGENT_CONTAINER]);
    expect(engine.image).toBe(currentProtocol().image.reference);
    expect(engine.resources?.limits?.["nvidia.com/gpu"]).toBe("1");
    expect(agent.image).toBe("registry.example/arena:1.0");
    expect(agent.resources?.limits?.["nvidia.com/gpu"]).toBeUndefined();
    expect(agent.command).toEqual([
      "/opt/arena/pod-agent/node",
      "--max-semi-space-size=32",
      "--initial-old-space-size=512",
      "/opt/arena/pod-agent/pod-agent.mjs",
    ]);
    expect(engine.command).toEqual(["python3", "-I", "-S", "/arena/launcher/engine-launcher.py"]);
    expect(pod.spec?.restartPolicy).toBe("Never");
    expect(pod.spec?.activeDeadlineSeconds).toBe(5400);
    const custom = buildEvaluationPod(launch, {
      ...config,
      vllmImage: "mirror.example/vllm@sha256:abc",
      gpuResourceName: "amd.com/gpu",
    });
    const customEngine = custom.spec?.containers.find((c) => c.name === ENGINE_CONTAINER);
    expect(customEngine?.image).toBe("mirror.example/vllm@sha256:abc");
    expect(customEngine?.resources?.limits?.["amd.com/gpu"]).toBe("1");
    // the sim runtime's engines are the arena image's own simulated engine
    const sim = buildEvaluationPod(launch, { ...config, engineRuntime: "sim", simSpeed: 2 });
    expect(sim.spec?.containers.find((c) => c.name === ENGINE_CONTAINER)?.image).toBe("registry.example/arena:1.0");
    const simAgent = envOf(sim.spec!.containers.find((c) => c.name === AGENT_CONTAINER)!);
    expect(simAgent).toMatchObject({
      ARENA_ENGINE_RUNTIME: "sim",
      ARENA_SIM_ENGINE: "/opt/arena/pod-agent/sim-engine/sim-engine",
      SIM_SPEED: "2",
    });
  });

  it("makes the pod Guaranteed, the agent on whole cores of its own (the static CPU manager's)", () => {
    for (const c of [init, engine, agent]) {
      expect(c.resources?.requests, c.name).toEqual(c.resources?.limits);
      expect(c.resources?.requests?.cpu, c.name).toBeDefined();
      expect(c.resources?.requests?.memory, c.name).toBeDefined();
    }
    expect(agent.resources?.requests).toEqual({ cpu: "3", memory: "8Gi" });
    expect(engine.resources?.requests).toEqual({ cpu: "8", memory: "96Gi", "nvidia.com/gpu": "1" });
    expect(() => parseKubernetesBackendConfig({ ...config, agentCpu: "2500m" })).toThrow(/agentCpu: must be a whole/);
  });

  it("copies the launcher from the arena image through an init container, read-only to the engine", () => {
    expect(init.name).toBe(LAUNCHER_INIT_CONTAINER);
    expect(init.image).toBe("registry.example/arena:1.0");
    expect(init.command).toEqual(["cp", "-R", "/opt/arena/engine-launcher/.", "/arena/launcher/"]);
    expect(init.volumeMounts).toEqual([{ name: "launcher", mountPath: ENGINE_CONTAINER_PATHS.launcher }]);
    expect(engine.volumeMounts).toContainEqual({ name: "launcher", mountPath: "/arena/launcher", readOnly: true });
    expect(agent.volumeMounts?.some((m) => m.name === "launcher")).toBe(false);
  });

  it("runs the engine container under a uid of its own, the agent under another; every container unprivileged", () => {
    expect(pod.spec?.securityContext).toEqual({ runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } });
    const restricted = (uid: number) => ({
      runAsNonRoot: true,
      runAsUser: uid,
      runAsGroup: uid,
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ["ALL"] },
      seccompProfile: { type: "RuntimeDefault" },
    });
    expect(engine.securityContext).toEqual(restricted(2000));
    expect(agent.securityContext).toEqual(restricted(1000));
    expect(init.securityContext).toEqual(restricted(1000));
    expect(pod.spec?.hostNetwork).toBe(false);
    expect(pod.spec?.hostPID).toBe(false);
    expect(pod.spec?.hostIPC).toBe(false);
    // each container its own PID namespace: the launcher is its container's init, the agent out of the engines' sight
    expect(pod.spec?.shareProcessNamespace).toBe(false);
    expect(() => parseKubernetesBackendConfig({ ...config, engineRunAsUser: 1000 })).toThrow(
      /engineRunAsUser: the engine container's uid must not be the agent's/,
    );
  });

  it("gives the pod no service-account token and no service links", () => {
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.enableServiceLinks).toBe(false);
  });

  it("mounts the sealed inputs read-only by subPath, and shares only them and the one-socket exchange", () => {
    const sealed = (engine.volumeMounts ?? []).filter((m) => m.name === "arena-storage" || m.name === "arena-models");
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
    expect(paths(engine)).toEqual(
      [
        "/arena/engine",
        "/arena/speculator",
        "/arena/target",
        "/arena/stock-engine",
        "/arena/launcher",
        "/arena/exchange",
        "/arena/engine-scratch",
        "/arena/no-speculator",
        "/tmp",
        "/dev/shm",
      ].sort(),
    );
    // the agent reads the target's tokenizer; it needs no engine's files
    expect(paths(agent)).toEqual(["/arena/exchange", "/arena/scratch", "/arena/target", "/tmp"]);
    const volumesOf = (c: V1Container) => new Set((c.volumeMounts ?? []).map((m) => m.name));
    const shared = [...volumesOf(engine)].filter((v) => volumesOf(agent).has(v));
    expect(shared.sort()).toEqual(["arena-models", "exchange"]);
    // only the scratch areas and the exchange are writable
    const writable = (c: V1Container) => (c.volumeMounts ?? []).filter((m) => !m.readOnly).map((m) => m.mountPath);
    expect(writable(engine).sort()).toEqual(["/arena/engine-scratch", "/arena/exchange", "/dev/shm", "/tmp"]);
    expect(writable(agent).sort()).toEqual(["/arena/exchange", "/arena/scratch", "/tmp"]);
  });

  it("mounts a test evaluation's hidden pool read-only as one file in the agent's container only", () => {
    const withPool = buildEvaluationPod({ ...launch, poolPath: "/var/lib/arena/pools/test.jsonl" }, config);
    const [poolEngine, poolAgent] = withPool.spec!.containers as [V1Container, V1Container];
    expect(poolAgent.volumeMounts).toContainEqual({
      name: "arena-storage",
      mountPath: POD_PATHS.pool,
      subPath: "pools/test.jsonl",
      readOnly: true,
    });
    expect(
      poolEngine.volumeMounts?.some((m) => m.subPath === "pools/test.jsonl" || m.mountPath === POD_PATHS.pool),
    ).toBe(false);
    expect(envOf(poolAgent).ARENA_POOL_PATH).toBe(POD_PATHS.pool);
    // a dev evaluation plays the pool the agent ships with: nothing mounted, nothing named
    expect(envOf(agent).ARENA_POOL_PATH).toBeUndefined();
  });

  it("backs the engines' /dev/shm with memory and gives each container its own scratch and /tmp", () => {
    expect(engine.volumeMounts).toContainEqual({ name: "engine-shm", mountPath: "/dev/shm" });
    expect(pod.spec?.volumes).toContainEqual({ name: "engine-shm", emptyDir: { medium: "Memory", sizeLimit: "32Gi" } });
    expect(pod.spec?.volumes).toContainEqual({ name: "engine-scratch", emptyDir: { sizeLimit: "100Gi" } });
    expect(engine.volumeMounts).toContainEqual({ name: "engine-tmp", mountPath: "/tmp" });
    expect(agent.volumeMounts).toContainEqual({ name: "agent-tmp", mountPath: "/tmp" });
    expect(pod.spec?.volumes).toContainEqual({ name: "no-speculator", emptyDir: { sizeLimit: "1Mi" } });
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

  it("tells the agent its evaluation, task, profile, seed, the engines' paths and runtime, and its engine container", () => {
    const env = envOf(agent);
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
      ARENA_SCRATCH_DIR: POD_PATHS.scratch,
      ARENA_ENGINE_RUNTIME: "vllm",
    });
    expect(parseEngineContainerConfig(env.ARENA_ENGINE_CONTAINER!)).toEqual({
      socket: "/arena/exchange/launcher.sock",
      scratch: "/arena/engine-scratch",
      noSpeculator: "/arena/no-speculator",
      acceptSeconds: 1800,
    });
    // the agent parses it as it would in the pod
    expect(agentEnv(env).ARENA_ENGINE_CONTAINER).toBe(env.ARENA_ENGINE_CONTAINER);
    // with a read-only root, every place the agent writes to is on a writable mount
    for (const key of ["HOME", "TMPDIR"]) expect(env[key], key).toMatch(/^\/(arena\/scratch|tmp)(\/|$)/);
    expect(envOf(engine)).toEqual({
      ARENA_LAUNCHER_SOCKET: "/arena/exchange/launcher.sock",
      ARENA_LAUNCHER_CLEAR: "/tmp:/dev/shm:/arena/engine-scratch",
      ARENA_LAUNCHER_WAIT_SECONDS: "1800",
    });
    expect(engine.workingDir).toBe("/arena/engine-scratch");
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
