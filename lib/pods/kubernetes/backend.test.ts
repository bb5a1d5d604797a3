import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../agent/events";
import type { PodEvent, PodHandle, PodLaunch } from "../types";
import { KubernetesPodBackend } from "./backend";
import { parseKubernetesBackendConfig } from "./config";
import { buildEvaluationPod } from "./pod-spec";
import { FakeKubeApi } from "./testing/fake-kube-api";
import { podStates } from "./testing/pod-states";

const NS = "arena-evals";
const config = parseKubernetesBackendConfig({
  namespace: NS,
  agentImage: "registry.example/arena:1.0",
  storage: [
    { name: "arena-storage", workerRoot: "/var/lib/arena", source: { kind: "pvc", claimName: "arena-storage" } },
  ],
});

function launch(evaluationId: string, attempt = 1): PodLaunch {
  return {
    evaluationId,
    attempt,
    taskId: "qwen3-8b",
    profile: "ci",
    seed: 7,
    engineDir: `/var/lib/arena/sealed/${evaluationId}/engine`,
    speculatorDir: `/var/lib/arena/sealed/${evaluationId}/speculator`,
    targetDir: "/var/lib/arena/models/qwen3-8b",
    stockEngineDir: "/var/lib/arena/stock/vllm",
    deadlineSeconds: 3600,
  };
}

const line = (e: AgentEvent) => `${JSON.stringify(e)}\n`;

async function collect(handle: PodHandle): Promise<PodEvent[]> {
  const out: PodEvent[] = [];
  for await (const e of handle.events) out.push(e);
  return out;
}

async function until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

let api: FakeKubeApi;
let backend: KubernetesPodBackend;
const warnings: string[] = [];

beforeEach(async () => {
  api = await FakeKubeApi.start();
  warnings.length = 0;
  backend = new KubernetesPodBackend({
    kubeConfig: api.kubeConfig(),
    config,
    retryDelayMs: 20,
    logDrainMs: 300,
    onWarning: (m) => warnings.push(m),
  });
});

afterEach(async () => {
  backend.close();
  await api.close();
});

describe("KubernetesPodBackend against a local API server", () => {
  it("creates the NetworkPolicy, then the pod exactly as the spec builder makes it", async () => {
    const handle = await backend.start(launch("ev-create"));
    const policy = api.networkPolicy(NS, config.networkPolicyName);
    expect(policy?.spec?.policyTypes).toEqual(["Ingress", "Egress"]);
    const pod = api.pod(NS, handle.podId);
    const expected = buildEvaluationPod(launch("ev-create"), config);
    expect(pod?.spec).toEqual(expected.spec);
    expect(pod?.metadata?.labels).toEqual(expected.metadata?.labels);
    const posts = api.requests.filter((r) => r.method === "POST").map((r) => r.path);
    expect(posts).toEqual([
      `/apis/networking.k8s.io/v1/namespaces/${NS}/networkpolicies`,
      `/api/v1/namespaces/${NS}/pods`,
    ]);
    // A second evaluation reuses the policy it found.
    await backend.start(launch("ev-create-2"));
    expect(api.requests.filter((r) => r.method === "POST" && r.path.endsWith("networkpolicies"))).toHaveLength(1);
    await backend.stop(handle.podId);
  });

  it("reads events from the followed log, a JSON line split across two chunks included, and completes", async () => {
    const handle = await backend.start(launch("ev-run"));
    const events = collect(handle);
    api.setPodStatus(NS, handle.podId, podStates.initializing());
    api.setPodStatus(NS, handle.podId, podStates.running());
    await until(() => api.followerCount(NS, handle.podId) === 1, "the log to be followed");
    const follow = api.requests.find((r) => r.path.endsWith(`/pods/${handle.podId}/log`));
    expect(follow?.query).toMatchObject({ follow: "true", container: "agent", timestamps: "true" });

    api.writeLog(NS, handle.podId, line({ type: "phase", phase: "candidate" }));
    api.writeLog(NS, handle.podId, "INFO engine noise that is not an event\n");
    const split = line({ type: "engine", engine: "candidate", state: "healthy" });
    api.writeLog(NS, handle.podId, split.slice(0, 20));
    await new Promise((r) => setTimeout(r, 50));
    api.writeLog(NS, handle.podId, split.slice(20));
    api.writeLog(NS, handle.podId, '{"type":"memory","usedMib":"not a number"}\n');
    api.writeLog(NS, handle.podId, line({ type: "memory", usedMib: 70000, totalMib: 143771 }));
    api.writeLog(
      NS,
      handle.podId,
      line({ type: "result", outcome: "scored", reason: null, record: { specScore: 1.4 } }),
    );
    api.setPodStatus(NS, handle.podId, podStates.succeeded());
    api.endLog(NS, handle.podId);

    expect(await handle.exited).toEqual({ kind: "completed" });
    expect(await events).toEqual([
      { type: "phase", phase: "candidate" },
      { type: "engine", engine: "candidate", state: "healthy" },
      { type: "memory", usedMib: 70000, totalMib: 143771 },
      { type: "result", outcome: "scored", reason: null, record: { specScore: 1.4 } },
    ]);
  });

  it("resumes a cut log stream without losing or repeating an event", async () => {
    const handle = await backend.start(launch("ev-resume"));
    const events = collect(handle);
    api.setPodStatus(NS, handle.podId, podStates.running());
    await until(() => api.followerCount(NS, handle.podId) === 1, "the log to be followed");
    api.writeLog(NS, handle.podId, line({ type: "phase", phase: "one" }));
    api.writeLog(NS, handle.podId, line({ type: "phase", phase: "two" }));
    api.writeLog(NS, handle.podId, '{"type":"phase","pha');
    await new Promise((r) => setTimeout(r, 50));
    api.dropLogStreams();
    api.dropWatches();
    await until(() => api.followerCount(NS, handle.podId) === 1, "the log to be followed again");
    const resumed = api.requests.filter((r) => r.path.endsWith("/log")).at(-1);
    expect(resumed?.query.sinceTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    api.writeLog(NS, handle.podId, 'se":"three"}\n');
    api.writeLog(NS, handle.podId, line({ type: "phase", phase: "four" }));
    api.setPodStatus(NS, handle.podId, podStates.succeeded());
    api.endLog(NS, handle.podId);
    expect(await handle.exited).toEqual({ kind: "completed" });
    expect((await events).map((e) => (e.type === "phase" ? e.phase : e.type))).toEqual(["one", "two", "three", "four"]);
  });

  it("re-attaches another worker to a running pod from where its stored events end, and to nothing once it is gone", async () => {
    const first = await backend.start(launch("ev-attach"));
    api.setPodStatus(NS, first.podId, podStates.running());
    await until(() => api.followerCount(NS, first.podId) === 1, "the log to be followed");
    const numbered = (seq: number, phase: string) => `${JSON.stringify({ type: "phase", phase, seq })}\n`;
    api.writeLog(NS, first.podId, numbered(1, "one"));
    api.writeLog(NS, first.podId, numbered(2, "two"));
    // the first worker goes (having stored event 1): the pod is left running
    first.detach();
    await until(() => api.followerCount(NS, first.podId) === 0, "the first worker to stop following");
    expect(api.pod(NS, first.podId)).toBeDefined();
    const next = new KubernetesPodBackend({ kubeConfig: api.kubeConfig(), config, retryDelayMs: 20, logDrainMs: 300 });
    const handle = await next.attach(first.podId, 1);
    expect(handle?.podId).toBe(first.podId);
    const events = collect(handle!);
    await until(() => api.followerCount(NS, first.podId) === 1, "the log to be followed again");
    // from the log's start: nothing relayed already comes again, nothing written since is missed
    expect(api.requests.filter((r) => r.path.endsWith("/log")).at(-1)?.query.sinceTime).toBeUndefined();
    api.writeLog(NS, first.podId, numbered(3, "three"));
    api.setPodStatus(NS, first.podId, podStates.succeeded());
    api.endLog(NS, first.podId);
    expect(await handle!.exited).toEqual({ kind: "completed" });
    expect(await events).toEqual([
      { type: "phase", phase: "two", seq: 2 },
      { type: "phase", phase: "three", seq: 3 },
    ]);
    await next.stop(first.podId);
    expect(await next.attach(first.podId, 3)).toBeNull();
    next.close();
  });

  it("fails Unschedulable from the watched PodScheduled condition, and removes the pod", async () => {
    const handle = await backend.start(launch("ev-unsched"));
    api.setPodStatus(NS, handle.podId, podStates.unschedulable());
    const exit = await handle.exited;
    expect(exit).toEqual({
      kind: "failed",
      reason: "unschedulable",
      message: "0/3 nodes are available: 3 Insufficient nvidia.com/gpu.",
    });
    expect(await collect(handle)).toEqual([]);
    await until(() => api.deletions.includes(handle.podId), "the pod to be deleted");
  });

  it("fails on an image pull back-off, of the engine image or the agent's init image", async () => {
    const a = await backend.start(launch("ev-pull-a"));
    const b = await backend.start(launch("ev-pull-b"));
    api.setPodStatus(NS, a.podId, podStates.initializing());
    api.setPodStatus(NS, a.podId, podStates.imagePullBackOff("agent"));
    api.setPodStatus(NS, b.podId, podStates.imagePullBackOff("init"));
    const [ea, eb] = await Promise.all([a.exited, b.exited]);
    expect(ea).toMatchObject({ kind: "failed", reason: "image-pull" });
    expect(ea.kind === "failed" && ea.message).toContain("ImagePullBackOff");
    expect(eb).toMatchObject({ kind: "failed", reason: "image-pull" });
    expect(eb.kind === "failed" && eb.message).toContain("install-launcher");
  });

  it("fails deadline-exceeded and OOM-killed pods, ending their events after the log", async () => {
    const late = await backend.start(launch("ev-late"));
    const oom = await backend.start(launch("ev-oom"));
    const lateEvents = collect(late);
    const oomEvents = collect(oom);
    api.setPodStatus(NS, late.podId, podStates.running());
    api.setPodStatus(NS, oom.podId, podStates.running());
    await until(() => api.followerCount(NS, late.podId) === 1 && api.followerCount(NS, oom.podId) === 1, "both logs");
    api.writeLog(NS, late.podId, line({ type: "phase", phase: "stock" }));
    api.writeLog(NS, oom.podId, line({ type: "log", level: "warn", message: "memory high" }));
    api.setPodStatus(NS, late.podId, podStates.deadlineExceeded());
    api.setPodStatus(NS, oom.podId, podStates.oomKilled());
    api.endLog(NS, late.podId);
    api.endLog(NS, oom.podId);
    expect(await late.exited).toMatchObject({ kind: "failed", reason: "deadline-exceeded" });
    expect(await oom.exited).toMatchObject({ kind: "failed", reason: "oom-killed" });
    expect(await lateEvents).toEqual([{ type: "phase", phase: "stock" }]);
    expect(await oomEvents).toEqual([{ type: "log", level: "warn", message: "memory high" }]);
  });

  it("reports a pod deleted behind its back as lost, even across a dropped watch", async () => {
    const handle = await backend.start(launch("ev-lost"));
    api.setPodStatus(NS, handle.podId, podStates.running());
    await until(() => api.followerCount(NS, handle.podId) === 1, "the log to be followed");
    api.dropWatches();
    // Deleted while no watch is open: the resync read finds it gone.
    const other = new KubernetesPodBackend({ kubeConfig: api.kubeConfig(), config });
    await other.stop(handle.podId);
    expect(await handle.exited).toEqual({
      kind: "failed",
      reason: "pod-lost",
      message: "the pod was deleted before it ended",
    });
    expect(await collect(handle)).toEqual([]);
  });

  it("deletes the pod on stop (cancel), and a second stop of a gone pod succeeds", async () => {
    const handle = await backend.start(launch("ev-cancel"));
    const events = collect(handle);
    api.setPodStatus(NS, handle.podId, podStates.running());
    await until(() => api.followerCount(NS, handle.podId) === 1, "the log to be followed");
    api.writeLog(NS, handle.podId, line({ type: "phase", phase: "candidate" }));
    await backend.stop(handle.podId);
    expect(api.pod(NS, handle.podId)).toBeUndefined();
    const del = api.requests.find((r) => r.method === "DELETE");
    expect(del?.query.gracePeriodSeconds).toBe(String(config.deleteGracePeriodSeconds));
    expect(await handle.exited).toEqual({
      kind: "failed",
      reason: "pod-lost",
      message: "the pod was stopped by the arena",
    });
    expect(await events).toEqual([{ type: "phase", phase: "candidate" }]);
    await expect(backend.stop(handle.podId)).resolves.toBeUndefined();
    expect(api.deletions).toEqual([handle.podId]);
  });

  it("lists the arena's evaluation pods (and only those) so orphans can be stopped", async () => {
    const a = await backend.start(launch("ev-list-a", 1));
    const b = await backend.start(launch("ev-list-b", 3));
    api.setPodStatus(NS, b.podId, podStates.running());
    api.seedPod({ metadata: { name: "unrelated", namespace: NS, labels: { app: "other" } }, spec: { containers: [] } });
    const listed = await backend.list();
    expect(listed.sort((x, y) => x.evaluationId.localeCompare(y.evaluationId))).toEqual([
      { podId: a.podId, evaluationId: "ev-list-a", attempt: 1, phase: "pending" },
      { podId: b.podId, evaluationId: "ev-list-b", attempt: 3, phase: "running" },
    ]);
    const list = api.requests.find(
      (r) => r.method === "GET" && r.path === `/api/v1/namespaces/${NS}/pods` && !r.query.watch,
    );
    expect(list?.query.labelSelector).toBe("app.kubernetes.io/name=speculator-arena,arena.role=evaluation");
    for (const p of listed) await backend.stop(p.podId);
    expect(await backend.list()).toEqual([]);
    expect(api.podNames()).toEqual([`${NS}/unrelated`]);
  });

  it("reports an agent that exited non-zero as crashed", async () => {
    const handle = await backend.start(launch("ev-crash"));
    api.setPodStatus(NS, handle.podId, podStates.running());
    api.setPodStatus(NS, handle.podId, podStates.agentFailed(2));
    api.endLog(NS, handle.podId);
    expect(await handle.exited).toEqual({
      kind: "failed",
      reason: "agent-crashed",
      message: "the pod agent exited with code 2 (Error)",
    });
    expect(await collect(handle)).toEqual([]);
  });

  it("waits out a passing Unschedulable spell when given a grace period", async () => {
    const patient = new KubernetesPodBackend({
      kubeConfig: api.kubeConfig(),
      config: { ...config, unschedulableGraceSeconds: 1 },
      retryDelayMs: 20,
      logDrainMs: 300,
    });
    const waits = await patient.start(launch("ev-patient"));
    const gives = await patient.start(launch("ev-gives-up"));
    api.setPodStatus(NS, waits.podId, podStates.unschedulable());
    api.setPodStatus(NS, gives.podId, podStates.unschedulable());
    await new Promise((r) => setTimeout(r, 300));
    api.setPodStatus(NS, waits.podId, podStates.running());
    expect(await gives.exited).toMatchObject({ kind: "failed", reason: "unschedulable" });
    api.setPodStatus(NS, waits.podId, podStates.succeeded());
    api.endLog(NS, waits.podId);
    expect(await waits.exited).toEqual({ kind: "completed" });
    patient.close();
  });

  it("refuses a second pod for the same attempt with a clear error", async () => {
    await backend.start(launch("ev-dup", 2));
    await expect(backend.start(launch("ev-dup", 2))).rejects.toThrow(/already exists for evaluation ev-dup attempt 2/);
  });
});
