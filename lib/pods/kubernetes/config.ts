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

export const kubernetesBackendConfigSchema = z.object({
  /** The namespace evaluation pods (and their NetworkPolicy) live in. */
  namespace: dnsLabel.default("speculator-arena-evals"),
  /** The engine image; defaults to the protocol's pinned vLLM image. */
  vllmImage: z.string().min(1).optional(),
  /** The arena's own image, which carries the pod agent bundle. */
  agentImage: z.string().min(1),
  imagePullPolicy: z.enum(["Always", "IfNotPresent", "Never"]).default("IfNotPresent"),
  imagePullSecrets: z.array(dnsLabel).default([]),
  /** Where the agent bundle (a node binary and the bundled agent) sits in the arena image. */
  agentBundleDir: absolutePath.default("/opt/arena/pod-agent"),
  /** The agent's command, relative to the bundle once copied to `/arena/agent` in the pod. */
  agentCommand: z.array(z.string().min(1)).min(1).default(["/arena/agent/node", "/arena/agent/pod-agent.mjs"]),
  gpuResourceName: z
    .string()
    .regex(/^([a-z0-9.-]+\/)?[A-Za-z0-9_.-]+$/, "must be an extended resource name such as nvidia.com/gpu")
    .default("nvidia.com/gpu"),
  runAsUser: z.coerce.number().int().positive().default(1000),
  runAsGroup: z.coerce.number().int().positive().default(1000),
  /** The volumes the launch's sealed paths live on (engine, speculator, target, stock engine). */
  storage: z.array(storageVolumeSchema).min(1),
  shmSizeLimit: z.string().default("32Gi"),
  scratchSizeLimit: z.string().default("100Gi"),
  cpuRequest: z.string().default("4"),
  memoryRequest: z.string().default("32Gi"),
  memoryLimit: z.string().default("96Gi"),
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
export function kubernetesBackendConfigFromEnv(env: Record<string, string | undefined>): KubernetesBackendConfig {
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
    namespace: nonEmpty(env.KUBE_NAMESPACE),
    vllmImage: nonEmpty(env.KUBE_VLLM_IMAGE),
    agentImage: nonEmpty(env.KUBE_AGENT_IMAGE),
    imagePullPolicy: nonEmpty(env.KUBE_IMAGE_PULL_POLICY),
    gpuResourceName: nonEmpty(env.KUBE_GPU_RESOURCE),
    runtimeClassName: nonEmpty(env.KUBE_RUNTIME_CLASS),
    priorityClassName: nonEmpty(env.KUBE_PRIORITY_CLASS),
    unschedulableGraceSeconds: nonEmpty(env.KUBE_UNSCHEDULABLE_GRACE_SECONDS),
    storage,
  });
}
