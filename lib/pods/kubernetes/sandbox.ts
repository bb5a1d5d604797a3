import type { SandboxPropertyId } from "../sandbox/properties";

/**
 * How an evaluation pod on a cluster holds each of the protocol's sandbox properties (lib/pods/sandbox/properties.ts),
 * with no privilege anywhere: by the pod spec (lib/pods/kubernetes/pod-spec.ts), by the engine container's launcher
 * (lib/pods/engine-container), or by the cluster's own settings, which k8s/README.md asks the operators for.
 * lib/pods/kubernetes/kubernetes.e2e.test.ts checks every entry against the red-team probe in a pod played from
 * its spec.
 */
export interface KubernetesHold {
  how: string;
  /** What the cluster must do for the pod spec's part to hold (the operators' settings), if anything. */
  cluster?: string;
}

export const KUBERNETES_SANDBOX: Record<SandboxPropertyId, KubernetesHold> = {
  "network-loopback-only": {
    how: "the pod's own network namespace; the default-deny NetworkPolicy (no ingress, no egress, no DNS), which the worker makes before any pod and fails closed without",
    cluster: "a CNI that enforces NetworkPolicy (Calico, Cilium, ...)",
  },
  "host-processes-hidden": {
    how: "hostPID false, and each container its own PID namespace (shareProcessNamespace false): the engines see their container's processes only",
  },
  "processes-unsignalable": {
    how: "the engine container runs under a uid of its own, in its own PID namespace, where the agent is not; its PID 1 is the launcher, which the kernel shields from every signal it has no handler for, and which is non-dumpable",
  },
  "private-tmp": {
    how: "the engine container's /tmp and /dev/shm are emptyDirs of its own over a read-only root; the node's are never mounted",
  },
  "no-other-inputs": {
    how: "only this evaluation's sealed folders are mounted, by subPath, read-only; nothing else of the storage volume is",
  },
  "no-pool": { how: "the hidden pool is mounted in the agent's container only" },
  "no-arena-state": {
    how: "the arena's data, state and credentials are mounted nowhere in the pod; no service-account token; the agent's environment is in another container, under another uid",
  },
  "arena-code-unwritable": {
    how: "the engine container's root file system is read-only and every arena folder it sees (the target, the stock engine, its own sealed inputs) is mounted read-only; the agent, its bundle and its folder are in another container",
  },
  "memory-limit": {
    how: "the engine container's memory limit (its own cgroup, requests equal to limits): an engine past it is OOM-killed, never the agent",
  },
  "process-limit": {
    how: "the kubelet's pod pid limit",
    cluster: "the kubelet's podPidsLimit (--pod-max-pids) on the GPU nodes: the pod spec cannot set one",
  },
  "leftovers-cleared": {
    how: "between engines the launcher, PID 1 of the engine container, SIGKILLs every other process there (kill(-1): every session, group and orphan), waits until none is left, empties the container's /tmp, /dev/shm and scratch, and removes the System V IPC objects its uid left in the pod's IPC namespace",
  },
  "pod-dies-with-agent": {
    how: "the launcher exits when the agent's connection closes, and its end, as its PID namespace's init, kills every process of the engine container; restartPolicy Never; activeDeadlineSeconds bounds a pod whose worker is gone",
  },
  "inputs-deleted": {
    how: "the worker deletes an evaluation's sealed folder once it has ended (lib/evaluations/seal-inputs.ts), as on the local backend",
  },
};
