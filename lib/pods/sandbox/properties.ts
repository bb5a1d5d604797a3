/**
 * What the protocol promises about the engine's sandbox (sections 3, 4 and 9), written once: each backend's test
 * checks this list (the local backend's sandbox.e2e.test.ts; the Kubernetes backend's, against its pod), and the
 * local backend names the entries it cannot keep on a host in the evaluation's log and its result record.
 */

/** What a property rests on, on the local backend; a host that lacks one loses every property that needs it. */
export type SandboxMechanism =
  /** engines run as an unprivileged user of their own (the agent runs as root) */
  | "engine-user"
  /** the pod's own network, PID, mount, IPC and UTS namespaces (`unshare`, as root) */
  | "namespaces"
  /** a memory cgroup for the pod's engines */
  | "cgroup-memory"
  /** a pids cgroup for the pod's engines */
  | "cgroup-pids";

/** One attempt of the red-team probe engine (lib/sim-engine/engines/probe), as it reports it. */
export type ProbeAttack =
  | "connect"
  | "port-scan"
  | "unix-socket"
  | "redis"
  | "see-process"
  | "signal"
  | "kill-init"
  | "list"
  | "read"
  | "write"
  | "earlier-process"
  | "earlier-file"
  | "memory"
  | "fork";

export interface SandboxProperty {
  id: SandboxPropertyId;
  /** The promise, in the protocol's words where it has them. */
  promise: string;
  section: string;
  needs: readonly SandboxMechanism[];
  /** The probe's attempts that must all fail for the property to hold. */
  probe: readonly ProbeAttack[];
  /** What a test checks from outside the pod, where the engine itself cannot show it. */
  outside?: string;
}

export const SANDBOX_PROPERTY_IDS = [
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
  "inputs-deleted",
] as const;

export type SandboxPropertyId = (typeof SANDBOX_PROPERTY_IDS)[number];

export const SANDBOX_PROPERTIES: readonly SandboxProperty[] = [
  {
    id: "network-loopback-only",
    promise:
      "no network but loopback: nothing listening on the host (the web app, PostgreSQL, Redis, any port or socket) is reachable",
    section: "3",
    needs: ["namespaces"],
    probe: ["connect", "port-scan", "unix-socket", "redis"],
    outside: "Redis still answers, no forged event reaches a live viewer, no connection reaches a host listener",
  },
  {
    id: "host-processes-hidden",
    promise: "no process of the host is visible to the engine",
    section: "3",
    needs: ["namespaces"],
    probe: ["see-process"],
  },
  {
    id: "processes-unsignalable",
    promise: "the engine can signal neither the pod agent, nor the pod's init, nor any process of the host",
    section: "3",
    needs: ["engine-user", "namespaces"],
    probe: ["signal", "kill-init"],
  },
  {
    id: "private-tmp",
    promise: "/tmp, /var/tmp and /dev/shm are the pod's own: nothing of the host's is visible there",
    section: "4",
    needs: ["namespaces"],
    probe: ["list", "read"],
    outside: "nothing the engine wrote is left in the host's /tmp, /var/tmp or /dev/shm",
  },
  {
    id: "no-other-inputs",
    promise: "other submissions are private directories readable by root only",
    section: "9",
    needs: ["engine-user", "namespaces"],
    probe: ["list", "read"],
  },
  {
    id: "no-pool",
    promise: "hidden data (the session pools, the hidden test pool) is readable by root only",
    section: "9",
    needs: ["engine-user", "namespaces"],
    probe: ["list", "read"],
    outside: "the evaluation, played on the hidden pool, is still judged: the agent reads it",
  },
  {
    id: "no-arena-state",
    promise: "the arena's data and state folders are readable by root only",
    section: "9",
    needs: ["engine-user", "namespaces"],
    probe: ["list", "read"],
  },
  {
    id: "arena-code-unwritable",
    promise:
      "no engine can change the arena's code or what it trusts beside it: the agent's and the simulated engine's bundles, the tokenizer cache, the agent's folder",
    section: "9",
    needs: ["engine-user"],
    probe: ["write"],
  },
  {
    id: "memory-limit",
    promise: "an engine that allocates past its memory limit is killed, not the agent or the host",
    section: "7",
    needs: ["engine-user", "cgroup-memory"],
    probe: ["memory"],
    outside: "the evaluation still ends scored: the agent survived",
  },
  {
    id: "process-limit",
    promise: "an engine cannot start more than its process limit",
    section: "7",
    needs: ["engine-user", "cgroup-pids"],
    probe: ["fork"],
  },
  {
    id: "leftovers-cleared",
    promise:
      "every process of the engine's user is killed, the files it left in shared memory and scratch are removed (before the stock engine)",
    section: "4",
    needs: ["engine-user", "namespaces"],
    probe: ["earlier-process", "earlier-file"],
    outside:
      "a detached process's heartbeat stops before the stock engine starts; no process of the engine's user is left",
  },
  {
    id: "pod-dies-with-agent",
    promise:
      "when the pod agent dies, every process of the pod dies with it; a pod outlives its worker only as a whole, until the next worker re-attaches to it or stops it, and never past its deadline",
    section: "4",
    needs: ["namespaces"],
    probe: [],
    outside:
      "a worker killed with SIGKILL leaves its pod whole (every engine process in the pod's namespace), which the next worker stops whole once its evaluation is over; at its deadline no process of it is left",
  },
  {
    id: "inputs-deleted",
    promise: "an evaluation's sealed inputs are deleted when it ends (scored, failed, void or cancelled)",
    section: "9",
    needs: [],
    probe: [],
    outside: "the evaluation's sealed folder is gone once it has ended",
  },
];

export interface MissingProperty {
  property: SandboxPropertyId;
  why: string;
}

/**
 * The properties a host cannot keep, each with why: the reason of the first mechanism it needs that is missing.
 * `missing` maps each unavailable mechanism to its reason.
 */
export function missingProperties(missing: Partial<Record<SandboxMechanism, string>>): MissingProperty[] {
  const out: MissingProperty[] = [];
  for (const property of SANDBOX_PROPERTIES) {
    const lacking = property.needs.find((need) => missing[need] !== undefined);
    if (lacking) out.push({ property: property.id, why: missing[lacking]! });
  }
  return out;
}

export function sandboxProperty(id: SandboxPropertyId): SandboxProperty {
  return SANDBOX_PROPERTIES.find((p) => p.id === id)!;
}

/** The evaluation log's words for what the sandbox lacks: each property and its reason, grouped by reason. */
export function describeMissing(missing: readonly MissingProperty[]): string {
  if (missing.length === 0) return "the engine sandbox holds every property it promises";
  const byWhy = new Map<string, SandboxPropertyId[]>();
  for (const m of missing) byWhy.set(m.why, [...(byWhy.get(m.why) ?? []), m.property]);
  const parts = [...byWhy].map(([why, ids]) => `${ids.join(", ")} (${why})`);
  return `the engine sandbox lacks ${missing.length} of its ${SANDBOX_PROPERTIES.length} properties: ${parts.join("; ")}`;
}
