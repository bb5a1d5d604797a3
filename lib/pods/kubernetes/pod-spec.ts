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
import { JUDGE_NODE_FLAGS } from "../../judge/run/node-flags";
import { AGENT_BUNDLE_ENTRY, BUNDLED_SIM_ENGINE } from "../agent/bundle/bundle-layout";
import { ENGINE_CONTAINER_PATHS, type EngineContainerConfig, LAUNCHER_FILE } from "../engine-container/paths";
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
/** The engines' own container: its launcher is PID 1, and every engine process lives and dies in it. */
export const ENGINE_CONTAINER = "engine";
export const LAUNCHER_INIT_CONTAINER = "install-launcher";

/**
 * Where things sit inside an evaluation pod. The sealed inputs are mounted at the same paths in every container that
 * has them; the pool, the judge's scratch and /tmp in the agent's; the engines' scratch, /tmp and /dev/shm, the empty
 * SPECULATOR and the launcher in the engine container (ENGINE_CONTAINER_PATHS); the exchange (one socket) in both.
 */
export const POD_PATHS = {
  engine: "/arena/engine",
  speculator: "/arena/speculator",
  target: "/arena/target",
  stockEngine: "/arena/stock-engine",
  pool: "/arena/pool.jsonl",
  scratch: "/arena/scratch",
  tmp: "/tmp",
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

function restrictedContainerSecurity(user: { uid: number; gid: number }): V1SecurityContext {
  return {
    runAsNonRoot: true,
    runAsUser: user.uid,
    runAsGroup: user.gid,
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

/** The agent's environment in its container: what it reads (the target, its pool, its scratch) and what it names. */
function agentEnvironment(launch: PodLaunch, config: KubernetesBackendConfig): Record<string, string> {
  const engineContainer: EngineContainerConfig = {
    socket: ENGINE_CONTAINER_PATHS.socket,
    scratch: ENGINE_CONTAINER_PATHS.scratch,
    noSpeculator: ENGINE_CONTAINER_PATHS.noSpeculator,
    acceptSeconds: config.launcherAcceptSeconds,
  };
  return {
    ARENA_EVALUATION_ID: launch.evaluationId,
    ARENA_ATTEMPT: String(launch.attempt),
    ARENA_TASK: launch.taskId,
    ARENA_PROFILE: launch.profile,
    ARENA_SEED: String(launch.seed),
    ARENA_PROTOCOL_VERSION: currentProtocol().version,
    ARENA_DEADLINE_SECONDS: String(launch.deadlineSeconds),
    // the engines' paths, as the engine container mounts them (the agent hands them to engines)
    ARENA_ENGINE_DIR: POD_PATHS.engine,
    ARENA_SPECULATOR_DIR: POD_PATHS.speculator,
    ARENA_TARGET_DIR: POD_PATHS.target,
    ARENA_STOCK_ENGINE_DIR: POD_PATHS.stockEngine,
    ARENA_SCRATCH_DIR: POD_PATHS.scratch,
    ...(launch.poolPath ? { ARENA_POOL_PATH: POD_PATHS.pool } : {}),
    ARENA_ENGINE_RUNTIME: config.engineRuntime,
    ...(config.engineRuntime === "sim"
      ? {
          // the simulated engine of the arena's image, which the sim runtime's engine container runs
          ARENA_SIM_ENGINE: `${config.agentBundleDir}/${BUNDLED_SIM_ENGINE}`,
          ...(config.simSpeed !== undefined ? { SIM_SPEED: String(config.simSpeed) } : {}),
        }
      : {}),
    ARENA_ENGINE_CONTAINER: JSON.stringify(engineContainer),
    // the root filesystem is read-only: the agent's own files go to its scratch and /tmp
    HOME: `${POD_PATHS.scratch}/home`,
    TMPDIR: POD_PATHS.tmp,
  };
}

const envList = (env: Record<string, string>) => Object.entries(env).map(([name, value]) => ({ name, value }));

/**
 * The one pod an evaluation runs in, in two containers:
 *
 * - `engine`, on the engine image (the pinned vLLM; the arena's own on the sim runtime), under a uid of its own with
 *   the GPU: its PID 1 is the launcher (lib/pods/engine-container), which starts, stops and cleans up after every
 *   engine the agent asks for. It sees the sealed inputs (read-only), its own scratch, /tmp and /dev/shm, and the
 *   one-socket exchange volume: never the pool, the judge's scratch, or the agent.
 * - `agent`, on the arena's image: the pod agent and the judge, under the agent's uid, on whole cores of its own (the
 *   pod is Guaranteed, so the static CPU manager pins them). It reads the target's tokenizer and the pool.
 *
 * An init container copies the launcher from the arena's image. The containers share the pod's loopback (the judge
 * reaches the engine on 127.0.0.1) and nothing else: each has its own PID namespace. No token, no host namespace,
 * no privilege anywhere; the NetworkPolicy denies all other traffic.
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
    { name: "launcher", emptyDir: { sizeLimit: "64Mi" } },
    { name: "exchange", emptyDir: { medium: "Memory", sizeLimit: "1Mi" } },
    { name: "agent-scratch", emptyDir: { sizeLimit: "16Gi" } },
    { name: "agent-tmp", emptyDir: { sizeLimit: "2Gi" } },
    { name: "engine-scratch", emptyDir: { sizeLimit: config.scratchSizeLimit } },
    { name: "engine-tmp", emptyDir: { sizeLimit: "8Gi" } },
    { name: "engine-shm", emptyDir: { medium: "Memory", sizeLimit: config.shmSizeLimit } },
    { name: "no-speculator", emptyDir: { sizeLimit: "1Mi" } },
  ];
  const usedStorage = new Set<string>();
  const mountFrom = (workerPath: string, field: string, mountPath: string): V1VolumeMount => {
    const { volume, subPath } = resolveStoragePath(config.storage, workerPath, field);
    if (!usedStorage.has(volume.name)) {
      usedStorage.add(volume.name);
      volumes.push(storageVolume(volume));
    }
    return { name: volume.name, mountPath, subPath, readOnly: true };
  };
  const sealed = new Map<SealedMount["field"], V1VolumeMount>();
  for (const { field, mountPath } of SEALED_MOUNTS) sealed.set(field, mountFrom(launch[field], field, mountPath));
  // a test evaluation's hidden pool: one file, in the agent's container only
  const pool = launch.poolPath ? mountFrom(launch.poolPath, "poolPath", POD_PATHS.pool) : null;

  const guaranteed = (cpu: string, memory: string, extra: Record<string, string> = {}) => ({
    requests: { cpu, memory, ...extra },
    limits: { cpu, memory, ...extra },
  });
  const agentUser = { uid: config.runAsUser, gid: config.runAsGroup };
  const engineUser = { uid: config.engineRunAsUser, gid: config.engineRunAsGroup };

  const installLauncher: V1Container = {
    name: LAUNCHER_INIT_CONTAINER,
    image: config.agentImage,
    imagePullPolicy: config.imagePullPolicy,
    command: ["cp", "-R", `${config.launcherDir}/.`, `${ENGINE_CONTAINER_PATHS.launcher}/`],
    volumeMounts: [{ name: "launcher", mountPath: ENGINE_CONTAINER_PATHS.launcher }],
    resources: guaranteed("100m", "64Mi"),
    securityContext: restrictedContainerSecurity(agentUser),
  };

  const engine: V1Container = {
    name: ENGINE_CONTAINER,
    image: config.engineRuntime === "sim" ? config.agentImage : (config.vllmImage ?? protocol.image.reference),
    imagePullPolicy: config.imagePullPolicy,
    // isolated Python: no PYTHON* variable, no user or site package (an engine's plugin/ lands in a user site)
    command: ["python3", "-I", "-S", `${ENGINE_CONTAINER_PATHS.launcher}/${LAUNCHER_FILE}`],
    workingDir: ENGINE_CONTAINER_PATHS.scratch,
    env: envList({
      ARENA_LAUNCHER_SOCKET: ENGINE_CONTAINER_PATHS.socket,
      ARENA_LAUNCHER_CLEAR: [
        ENGINE_CONTAINER_PATHS.tmp,
        ENGINE_CONTAINER_PATHS.shm,
        ENGINE_CONTAINER_PATHS.scratch,
      ].join(":"),
      ARENA_LAUNCHER_WAIT_SECONDS: String(config.launcherAcceptSeconds),
    }),
    resources: guaranteed(config.engineCpu, config.engineMemory, { [config.gpuResourceName]: "1" }),
    volumeMounts: [
      { name: "launcher", mountPath: ENGINE_CONTAINER_PATHS.launcher, readOnly: true },
      { name: "exchange", mountPath: ENGINE_CONTAINER_PATHS.exchange },
      ...SEALED_MOUNTS.map(({ field }) => sealed.get(field)!),
      { name: "no-speculator", mountPath: ENGINE_CONTAINER_PATHS.noSpeculator, readOnly: true },
      { name: "engine-scratch", mountPath: ENGINE_CONTAINER_PATHS.scratch },
      { name: "engine-tmp", mountPath: ENGINE_CONTAINER_PATHS.tmp },
      { name: "engine-shm", mountPath: ENGINE_CONTAINER_PATHS.shm },
    ],
    securityContext: restrictedContainerSecurity(engineUser),
    terminationMessagePolicy: "FallbackToLogsOnError",
  };

  const agent: V1Container = {
    name: AGENT_CONTAINER,
    image: config.agentImage,
    imagePullPolicy: config.imagePullPolicy,
    command: [`${config.agentBundleDir}/node`, ...JUDGE_NODE_FLAGS, `${config.agentBundleDir}/${AGENT_BUNDLE_ENTRY}`],
    workingDir: POD_PATHS.scratch,
    env: envList(agentEnvironment(launch, config)),
    resources: guaranteed(config.agentCpu, config.agentMemory),
    volumeMounts: [
      sealed.get("targetDir")!,
      ...(pool ? [pool] : []),
      { name: "exchange", mountPath: ENGINE_CONTAINER_PATHS.exchange },
      { name: "agent-scratch", mountPath: POD_PATHS.scratch },
      { name: "agent-tmp", mountPath: POD_PATHS.tmp },
    ],
    securityContext: restrictedContainerSecurity(agentUser),
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
      annotations: {
        "arena.protocol-version": protocol.version,
        "arena.task": launch.taskId,
        // an evaluation cut short is void and refunded: the cluster autoscaler must not move it to save a node
        "cluster-autoscaler.kubernetes.io/safe-to-evict": "false",
      },
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
      // each container its own PID namespace: the launcher is its container's init, and no engine sees the agent
      shareProcessNamespace: false,
      securityContext: { runAsNonRoot: true, seccompProfile: { type: "RuntimeDefault" } },
      initContainers: [installLauncher],
      // the engine first: the kubelet pulls and starts containers in order, and the launcher waits for the agent
      containers: [engine, agent],
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
