import { z } from "zod";

/** A DNS-1123 label: namespaces, volume and container names. */
const dnsLabel = z
  .string()
  .max(63)
  .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, "must be a DNS-1123 label (lowercase letters, digits, '-')");

const absolutePath = z
  .string()
  .regex(/^\/.*/, "must be an absolute path")
  .refine((p) => !p.split("/").includes(".."), "must not contain '..'");

/** Where a sealed directory lives: a PersistentVolumeClaim or a directory on the node. */
export const storageSourceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("pvc"), claimName: dnsLabel }),
  z.object({ kind: z.literal("hostPath"), path: absolutePath }),
]);

/**
 * One volume shared by the worker and evaluation pods. The worker sees it at `workerRoot`;
 * a launch path under `workerRoot` is mounted into the pod by its `subPath`.
 */
export const storageVolumeSchema = z.object({
  name: dnsLabel,
  workerRoot: absolutePath,
  source: storageSourceSchema,
});

/** A Kubernetes quantity (cpu "3", "500m"; memory "96Gi"). */
const quantity = z
  .string()
  .regex(/^[0-9]+(\.[0-9]+)?([mkKMGTPE]i?)?$/, "must be a Kubernetes quantity such as 3, 500m or 96Gi");

/** Whole cores: the kubelet's static CPU manager gives a Guaranteed container exclusive cores only for these. */
const wholeCores = z.coerce
  .string()
  .regex(/^[1-9][0-9]*$/, "must be a whole number of cores (the static CPU manager pins only those)");

export const kubernetesBackendConfigSchema = z
  .object({
    /** The namespace evaluation pods (and their NetworkPolicy) live in. */
    namespace: dnsLabel.default("speculator-arena-evals"),
    /**
     * What the engines are (the worker's ENGINE_RUNTIME, handed to the agent): "vllm", the pinned image's; "sim", the
     * simulated engine of the arena's own image (clusters without GPUs, drills).
     */
    engineRuntime: z.enum(["sim", "vllm"]).default("vllm"),
    /** The simulated engine's speed-up (SIM_SPEED), on the sim runtime. */
    simSpeed: z.coerce.number().positive().optional(),
    /** The engine container's image on the vLLM runtime; defaults to the protocol's pinned vLLM image. */
    vllmImage: z.string().min(1).optional(),
    /** The arena's own image: the agent's container, the engine launcher's source, and the sim runtime's engine image. */
    agentImage: z.string().min(1),
    imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
    imagePullSecrets: z.array(dnsLabel).default([]),
    /** Where the agent bundle (a node binary, the bundled agent, with the sim runtime's engine) sits in the arena image. */
    agentBundleDir: absolutePath.default("/opt/arena/pod-agent"),
    /** Where the engine container's launcher sits in the arena image (copied into the pod by its init container). */
    launcherDir: absolutePath.default("/opt/arena/engine-launcher"),
    gpuResourceName: z
      .string()
      .regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9_.-]+$/, "must be an extended resource name such as nvidia.com/gpu")
      .default("nvidia.com/gpu"),
    /** The agent's (and the judge's) container's uid and gid. */
    runAsUser: z.coerce.number().int().positive().default(1000),
    runAsGroup: z.coerce.number().int().positive().default(1000),
    /** The engine container's uid and gid: never the agent's, so an engine can neither signal nor read the judge. */
    engineRunAsUser: z.coerce.number().int().positive().default(2000),
    engineRunAsGroup: z.coerce.number().int().positive().default(2000),
    /** The volumes the launch's sealed paths live on (engine, speculator, target, stock engine). */
    storage: z.array(storageVolumeSchema).min(1),
    shmSizeLimit: z.string().default("32Gi"),
    scratchSizeLimit: z.string().default("100Gi"),
    /** The agent's (the judge's) container: whole cores, requests equal to limits, so the pod is Guaranteed. */
    agentCpu: wholeCores.default("3"),
    agentMemory: quantity.default("8Gi"),
    /** The engine container: its CPUs and its memory limit (the engines' cgroup: an engine past it is OOM-killed). */
    engineCpu: wholeCores.default("8"),
    engineMemory: quantity.default("96Gi"),
    /** How long the agent waits for the engine container's launcher (the engine image may still be pulling). */
    launcherAcceptSeconds: z.coerce.number().int().positive().default(1800),
    nodeSelector: z.record(z.string(), z.string()).default({}),
    tolerations: z
      .array(
        z.object({
          key: z.string().optional(),
          operator: z.enum(["Exists", "Equal"]).optional(),
          value: z.string().optional(),
          effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).optional(),
        }),
      )
      .default([]),
    priorityClassName: z.string().optional(),
    runtimeClassName: z.string().optional(),
    networkPolicyName: dnsLabel.default("speculator-arena-evaluation-deny-all"),
    podNamePrefix: dnsLabel.max(20).default("arena-eval"),
    deleteGracePeriodSeconds: z.coerce.number().int().min(0).max(300).default(5),
    /** How long a pod may stay Unschedulable before the evaluation fails (0: at once; a cluster autoscaler needs minutes). */
    unschedulableGraceSeconds: z.coerce.number().int().min(0).default(0),
    /** Slack after the pod's own deadline before an unreachable or silent pod counts as lost. */
    lostAfterDeadlineSeconds: z.coerce.number().int().min(0).default(120),
  })
  .refine((c) => c.engineRunAsUser !== c.runAsUser, {
    message: "the engine container's uid must not be the agent's",
    path: ["engineRunAsUser"],
  });

export type KubernetesBackendConfig = z.infer<typeof kubernetesBackendConfigSchema>;
export type KubernetesBackendConfigInput = z.input<typeof kubernetesBackendConfigSchema>;
export type StorageVolume = z.infer<typeof storageVolumeSchema>;

/** Parses a config and names the offending field when it is wrong. */
export function parseKubernetesBackendConfig(input: unknown): KubernetesBackendConfig {
  const parsed = kubernetesBackendConfigSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(config)"}: ${i.message}`);
    throw new Error(`invalid Kubernetes pod backend config: ${problems.join("; ")}`);
  }
  return parsed.data;
}

/**
 * The environment variables the k8s/ manifests set, mapped onto the config.
 * Pure: lib/env.ts passes in the environment it has parsed.
 */
export function kubernetesBackendConfigFromEnv(
  env: Record<string, string | undefined>,
  runtime: { engineRuntime?: "sim" | "vllm"; simSpeed?: number } = {},
): KubernetesBackendConfig {
  const storage: unknown[] = [];
  if (env.KUBE_STORAGE_CLAIM || env.KUBE_STORAGE_HOST_PATH) {
    storage.push({
      name: "arena-storage",
      workerRoot: env.KUBE_STORAGE_WORKER_ROOT ?? "/var/lib/arena",
      source: env.KUBE_STORAGE_CLAIM
        ? { kind: "pvc", claimName: env.KUBE_STORAGE_CLAIM }
        : { kind: "hostPath", path: env.KUBE_STORAGE_HOST_PATH },
    });
  }
  if (env.KUBE_MODELS_CLAIM || env.KUBE_MODELS_HOST_PATH) {
    storage.push({
      name: "arena-models",
      workerRoot: env.KUBE_MODELS_WORKER_ROOT ?? "/var/lib/arena-models",
      source: env.KUBE_MODELS_CLAIM
        ? { kind: "pvc", claimName: env.KUBE_MODELS_CLAIM }
        : { kind: "hostPath", path: env.KUBE_MODELS_HOST_PATH },
    });
  }
  const nonEmpty = (v: string | undefined) => (v === undefined || v === "" ? undefined : v);
  let tolerations: unknown;
  if (nonEmpty(env.KUBE_TOLERATIONS)) {
    try {
      tolerations = JSON.parse(env.KUBE_TOLERATIONS as string);
    } catch {
      throw new Error("invalid Kubernetes pod backend config: KUBE_TOLERATIONS must be a JSON array of tolerations");
    }
  }
  const nodeSelector = nonEmpty(env.KUBE_NODE_SELECTOR)
    ?.split(",")
    .map((pair) => pair.split("=").map((x) => x.trim()))
    .reduce<Record<string, string>>((acc, [k, v]) => {
      if (!k || v === undefined)
        throw new Error(
          `invalid Kubernetes pod backend config: KUBE_NODE_SELECTOR needs key=value pairs, got "${env.KUBE_NODE_SELECTOR}"`,
        );
      acc[k] = v;
      return acc;
    }, {});
  return parseKubernetesBackendConfig({
    nodeSelector,
    tolerations,
    engineRuntime: runtime.engineRuntime,
    simSpeed: runtime.engineRuntime === "sim" ? runtime.simSpeed : undefined,
    namespace: nonEmpty(env.KUBE_NAMESPACE),
    vllmImage: nonEmpty(env.KUBE_VLLM_IMAGE),
    agentImage: nonEmpty(env.KUBE_AGENT_IMAGE),
    imagePullPolicy: nonEmpty(env.KUBE_IMAGE_PULL_POLICY),
    gpuResourceName: nonEmpty(env.KUBE_GPU_RESOURCE),
    runtimeClassName: nonEmpty(env.KUBE_RUNTIME_CLASS),
    priorityClassName: nonEmpty(env.KUBE_PRIORITY_CLASS),
    unschedulableGraceSeconds: nonEmpty(env.KUBE_UNSCHEDULABLE_GRACE_SECONDS),
    engineRunAsUser: nonEmpty(env.KUBE_ENGINE_RUN_AS_USER),
    engineRunAsGroup: nonEmpty(env.KUBE_ENGINE_RUN_AS_GROUP),
    agentCpu: nonEmpty(env.KUBE_AGENT_CPU),
    agentMemory: nonEmpty(env.KUBE_AGENT_MEMORY),
    engineCpu: nonEmpty(env.KUBE_ENGINE_CPU),
    engineMemory: nonEmpty(env.KUBE_ENGINE_MEMORY),
    shmSizeLimit: nonEmpty(env.KUBE_SHM_SIZE),
    scratchSizeLimit: nonEmpty(env.KUBE_SCRATCH_SIZE),
    storage,
  });
}
