import { createHash } from "node:crypto";
import path from "node:path";
import type {
  V1Container,
  V1NetworkPolicy,
  V1Pod,
  V1SecurityContext,
  V1Volume,
  V1VolumeMount,
} from "@kubernetes/client-node";
import { currentProtocol } from "@/lib/protocol";
import type { PodLaunch } from "../types";
import type { KubernetesBackendConfig, StorageVolume } from "./config";

/** Labels every arena-made object carries; `ROLE_LABEL` is what the NetworkPolicy selects. */
export const APP_LABEL = "app.kubernetes.io/name";
export const APP_NAME = "speculator-arena";
export const ROLE_LABEL = "arena.role";
export const EVALUATION_ROLE = "evaluation";
export const EVALUATION_ID_LABEL = "arena.evaluation-id";
export const ATTEMPT_LABEL = "arena.attempt";

/** The selector for every evaluation pod this arena made. */
export const EVALUATION_POD_SELECTOR = `${APP_LABEL}=${APP_NAME},${ROLE_LABEL}=${EVALUATION_ROLE}`;

export const AGENT_CONTAINER = "agent";
export const AGENT_INIT_CONTAINER = "install-agent";

/** Where things sit inside an evaluation pod; the agent reads them from its environment. */
export const POD_PATHS = {
  agent: "/arena/agent",
  engine: "/arena/engine",
  speculator: "/arena/speculator",
  target: "/arena/target",
  stockEngine: "/arena/stock-engine",
  pool: "/arena/pool.jsonl",
  scratch: "/scratch",
  tmp: "/tmp",
  shm: "/dev/shm",
} as const;

const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** The pod's name: readable, unique per (evaluation, attempt), within the 63 characters a hostname allows. */
export function evaluationPodName(
  config: Pick<KubernetesBackendConfig, "podNamePrefix">,
  launch: Pick<PodLaunch, "evaluationId" | "attempt">,
): string {
  const slug = launch.evaluationId
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  const hash = createHash("sha256").update(`${launch.evaluationId}\u0000${launch.attempt}`).digest("hex").slice(0, 8);
  const tail = `-a${launch.attempt}-${hash}`;
  const room = 63 - config.podNamePrefix.length - 1 - tail.length;
  const body = slug.slice(0, Math.max(0, room)).replace(/-+$/g, "");
  return body ? `${config.podNamePrefix}-${body}${tail}` : `${config.podNamePrefix}${tail}`;
}

function restrictedContainerSecurity(config: KubernetesBackendConfig): V1SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: config.runAsUser,
    runAsGroup: config.runAsGroup,
    allowPrivilegeEscalation: false,
    privileged: false,
    readOnlyRootFilesystem: true,
    capabilities: { drop: ["ALL"] },
    seccompProfile: { type: "RuntimeDefault" },
  };
}

interface SealedMount {
  field: "engineDir" | "speculatorDir" | "targetDir" | "stockEngineDir";
  mountPath: string;
}

const SEALED_MOUNTS: SealedMount[] = [
  { field: "engineDir", mountPath: POD_PATHS.engine },
  { field: "speculatorDir", mountPath: POD_PATHS.speculator },
  { field: "targetDir", mountPath: POD_PATHS.target },
  { field: "stockEngineDir", mountPath: POD_PATHS.stockEngine },
];

/** Finds the storage volume a worker-side path lives on (the deepest root wins) and its subPath there. */
export function resolveStoragePath(
  storage: readonly StorageVolume[],
  workerPath: string,
  field: string,
): { volume: StorageVolume; subPath: string } {
  if (!path.posix.isAbsolute(workerPath)) throw new Error(`${field} must be an absolute path, got "${workerPath}"`);
  const normalized = path.posix.normalize(workerPath);
  let best: { volume: StorageVolume; subPath: string } | undefined;
  for (const volume of storage) {
    const root = path.posix.normalize(volume.workerRoot).replace(/\/+$/, "");
    const rel = path.posix.relative(root || "/", normalized);
    if (rel === "" || rel.startsWith("..") || path.posix.isAbsolute(rel)) continue;
    if (!best || volume.workerRoot.length > best.volume.workerRoot.length) best = { volume, subPath: rel };
  }
  if (!best) {
    const roots = storage.map((v) => v.workerRoot).join(", ");
    throw new Error(`${field} "${workerPath}" is not under any configured storage volume root (${roots})`);
  }
  return best;
}

function storageVolume(volume: StorageVolume): V1Volume {
  return volume.source.kind === "pvc"
    ? { name: volume.name, persistentVolumeClaim: { claimName: volume.source.claimName, readOnly: true } }
    : { name: volume.name, hostPath: { path: volume.source.path, type: "Directory" } };
}

/**
 * The one pod an evaluation runs in. An init container from the arena's image copies the pod
 * agent into a shared volume; the engine image then runs the agent, which starts the engines.
 * Everything runs unprivileged with no network beyond loopback (see the NetworkPolicy), no
 * service-account token, and its inputs mounted read-only.
 */
export function buildEvaluationPod(launch: PodLaunch, config: KubernetesBackendConfig): V1Pod {
  if (!LABEL_VALUE.test(launch.evaluationId) || launch.evaluationId.length > 63 || launch.evaluationId === "") {
    throw new Error(`evaluationId "${launch.evaluationId}" cannot be a label value (at most 63 of [A-Za-z0-9-_.])`);
  }
  if (!Number.isInteger(launch.attempt) || launch.attempt < 0) {
    throw new Error(`attempt must be a non-negative integer, got ${launch.attempt}`);
  }
  if (!Number.isInteger(launch.deadlineSeconds) || launch.deadlineSeconds <= 0) {
    throw new Error(`deadlineSeconds must be a positive integer, got ${launch.deadlineSeconds}`);
  }
  const name = evaluationPodName(config, launch);
  const protocol = currentProtocol();

  const volumes: V1Volume[] = [
    { name: "agent", emptyDir: { sizeLimit: "1Gi" } },
    { name: "scratch", emptyDir: { sizeLimit: config.scratchSizeLimit } },
    { name: "tmp", emptyDir: { sizeLimit: "8Gi" } },
    { name: "dshm", emptyDir: { medium: "Memory", sizeLimit: config.shmSizeLimit } },
  ];
  const sealedMounts: V1VolumeMount[] = [];
  const usedStorage = new Set<string>();
  for (const { field, mountPath } of SEALED_MOUNTS) {
    const { volume, subPath } = resolveStoragePath(config.storage, launch[field], field);
    if (!usedStorage.has(volume.name)) {
      usedStorage.add(volume.name);
      volumes.push(storageVolume(volume));
    }
    sealedMounts.push({ name: volume.name, mountPath, subPath, readOnly: true });
  }
  // A test evaluation's hidden pool: one file, mounted read-only where the agent is told to read it.
  if (launch.poolPath) {
    const { volume, subPath } = resolveStoragePath(config.storage, launch.poolPath, "poolPath");
    if (!usedStorage.has(volume.name)) {
      usedStorage.add(volume.name);
      volumes.push(storageVolume(volume));
    }
    sealedMounts.push({ name: volume.name, mountPath: POD_PATHS.pool, subPath, readOnly: true });
  }

  const installAgent: V1Container = {
    name: AGENT_INIT_CONTAINER,
    image: config.agentImage,
    imagePullPolicy: config.imagePullPolicy,
    command: ["cp", "-R", `${config.agentBundleDir}/.`, `${POD_PATHS.agent}/`],
    volumeMounts: [{ name: "agent", mountPath: POD_PATHS.agent }],
    resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
    securityContext: restrictedContainerSecurity(config),
  };

  const env: Record<string, string> = {
    ARENA_EVALUATION_ID: launch.evaluationId,
    ARENA_ATTEMPT: String(launch.attempt),
    ARENA_TASK: launch.taskId,
    ARENA_PROFILE: launch.profile,
    ARENA_SEED: String(launch.seed),
    ARENA_PROTOCOL_VERSION: protocol.version,
    ARENA_DEADLINE_SECONDS: String(launch.deadlineSeconds),
    ARENA_ENGINE_DIR: POD_PATHS.engine,
    ARENA_SPECULATOR_DIR: POD_PATHS.speculator,
    ARENA_TARGET_DIR: POD_PATHS.target,
    ARENA_STOCK_ENGINE_DIR: POD_PATHS.stockEngine,
    ARENA_SCRATCH_DIR: POD_PATHS.scratch,
    ...(launch.poolPath ? { ARENA_POOL_PATH: POD_PATHS.pool } : {}),
    // The root filesystem is read-only: everything an engine or pip writes goes to scratch.
    HOME: `${POD_PATHS.scratch}/home`,
    TMPDIR: POD_PATHS.tmp,
    XDG_CACHE_HOME: `${POD_PATHS.scratch}/cache`,
    XDG_CONFIG_HOME: `${POD_PATHS.scratch}/config`,
    HF_HOME: `${POD_PATHS.scratch}/hf`,
    PYTHONUSERBASE: `${POD_PATHS.scratch}/python-user`,
    TRITON_CACHE_DIR: `${POD_PATHS.scratch}/cache/triton`,
    VLLM_CACHE_ROOT: `${POD_PATHS.scratch}/cache/vllm`,
    HF_HUB_OFFLINE: "1",
    TRANSFORMERS_OFFLINE: "1",
    PIP_NO_INDEX: "1",
    VLLM_NO_USAGE_STATS: "1",
    DO_NOT_TRACK: "1",
  };

  const agent: V1Container = {
    name: AGENT_CONTAINER,
    image: config.vllmImage ?? protocol.image.reference,
    imagePullPolicy: config.imagePullPolicy,
    command: config.agentCommand,
    workingDir: POD_PATHS.scratch,
    env: Object.entries(env).map(([k, value]) => ({ name: k, value })),
    resources: {
      requests: { [config.gpuResourceName]: "1", cpu: config.cpuRequest, memory: config.memoryRequest },
      limits: { [config.gpuResourceName]: "1", memory: config.memoryLimit },
    },
    volumeMounts: [
      { name: "agent", mountPath: POD_PATHS.agent, readOnly: true },
      ...sealedMounts,
      { name: "scratch", mountPath: POD_PATHS.scratch },
      { name: "tmp", mountPath: POD_PATHS.tmp },
      { name: "dshm", mountPath: POD_PATHS.shm },
    ],
    securityContext: restrictedContainerSecurity(config),
    terminationMessagePolicy: "FallbackToLogsOnError",
  };

  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name,
      namespace: config.namespace,
      labels: {
        [APP_LABEL]: APP_NAME,
        [ROLE_LABEL]: EVALUATION_ROLE,
        [EVALUATION_ID_LABEL]: launch.evaluationId,
        [ATTEMPT_LABEL]: String(launch.attempt),
      },
      annotations: { "arena.protocol-version": protocol.version, "arena.task": launch.taskId },
    },
    spec: {
      restartPolicy: "Never",
      activeDeadlineSeconds: launch.deadlineSeconds,
      terminationGracePeriodSeconds: 30,
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      hostNetwork: false,
      hostPID: false,
      hostIPC: false,
      shareProcessNamespace: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: config.runAsUser,
        runAsGroup: config.runAsGroup,
        seccompProfile: { type: "RuntimeDefault" },
      },
      initContainers: [installAgent],
      containers: [agent],
      volumes,
      ...(config.imagePullSecrets.length > 0
        ? { imagePullSecrets: config.imagePullSecrets.map((n) => ({ name: n })) }
        : {}),
      ...(Object.keys(config.nodeSelector).length > 0 ? { nodeSelector: config.nodeSelector } : {}),
      ...(config.tolerations.length > 0 ? { tolerations: config.tolerations } : {}),
      ...(config.priorityClassName ? { priorityClassName: config.priorityClassName } : {}),
      ...(config.runtimeClassName ? { runtimeClassName: config.runtimeClassName } : {}),
    },
  };
}

/**
 * Default-deny for evaluation pods: no ingress and no egress at all (no DNS either).
 * Loopback inside the pod is not subject to NetworkPolicy, so the judge still reaches the engine.
 */
export function buildEvaluationNetworkPolicy(
  config: Pick<KubernetesBackendConfig, "namespace" | "networkPolicyName">,
): V1NetworkPolicy {
  return {
    apiVersion: "networking.k8s.io/v1",
    kind: "NetworkPolicy",
    metadata: {
      name: config.networkPolicyName,
      namespace: config.namespace,
      labels: { [APP_LABEL]: APP_NAME },
    },
    spec: {
      podSelector: { matchLabels: { [APP_LABEL]: APP_NAME, [ROLE_LABEL]: EVALUATION_ROLE } },
      policyTypes: ["Ingress", "Egress"],
      ingress: [],
      egress: [],
    },
  };
}
