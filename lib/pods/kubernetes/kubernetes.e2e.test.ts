import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { V1Container } from "@kubernetes/client-node";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as submit } from "@/app/api/submissions/route";
import { db } from "../../db/client";
import { packDirectory } from "../../engine-archive/pack-directory";
import { repoRoot } from "../../evaluations/runtime";
import { sealDirectory } from "../../fetch/seal-directory";
import { writePodFiles } from "../../ops/image-tree/pod-files";
import { freePort } from "../../ops/services";
import { resetEventHubForTests } from "../../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../../testing/arena-test-context";
import { judgedHonestly } from "../../testing/judged-honestly";
import { type SpawnedWorker, spawnWorker } from "../../testing/spawn-worker";
import { until } from "../../testing/until";
import { issueToken } from "../../tokens/issue-token";
import { livePidsOf } from "../agent/engine-user";
import { judgeProbeReport, PROBE_HEARTBEAT, parseProbeReport } from "../sandbox/probe-report";
import { SANDBOX_PROPERTIES } from "../sandbox/properties";
import { AGENT_CONTAINER, ENGINE_CONTAINER, POD_PATHS } from "./pod-spec";
import { KUBERNETES_SANDBOX } from "./sandbox";
import { containerCgroupName, STAND_IN_CGROUP_PREFIX } from "./testing/kubelet-stand-in";
import { type LocalCluster, startLocalCluster } from "./testing/local-cluster";

// A whole evaluation through the `kubernetes` backend: POST /api/submissions, the real worker with k8s/config.yaml's
// environment (the node's folders mapped to this machine's, the simulated runtime: no GPU here), the local API server,
// and a pod played from its spec alone by the stand-in kubelet: the arena image's agent bundle and engine launcher, two
// containers under two uids, the mounts its spec names. The candidate is the red-team probe, on the hidden pool.
// The stand-in kubelet makes namespaces and cgroups: it runs as root, as CI does.
const ENGINE_UID = 2000;
const AGENT_UID = 1000;

/**
 * The live processes of a uid that are not another node's pods': the arena image's test (image-tree.e2e) plays its
 * own pod under the same uids on this host, in cgroups named after its pod. A process of ours, or one that left every
 * pod's cgroup, counts.
 */
async function pidsOutsideOtherPods(uid: number): Promise<number[]> {
  const ours = cluster.kubelet.podUids().map((pod) => containerCgroupName(pod, ""));
  const out: number[] = [];
  for (const pid of await livePidsOf(uid)) {
    const cgroups = await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "");
    if (!cgroups.includes(STAND_IN_CGROUP_PREFIX) || ours.some((pod) => cgroups.includes(pod))) out.push(pid);
  }
  return out;
}

/** Each such process: its pid, state, parent, command line and cgroups (what a leak's message needs). */
async function describeProcesses(uid: number): Promise<string> {
  const lines: string[] = [];
  for (const pid of await pidsOutsideOtherPods(uid)) {
    const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "");
    const field = (name: string) => new RegExp(`^${name}:\\s+(.*)$`, "m").exec(status)?.[1] ?? "?";
    const command = (await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => "")).replaceAll("\0", " ").trim();
    const cgroups = (await readFile(`/proc/${pid}/cgroup`, "utf8").catch(() => "")).trim().replaceAll("\n", "; ");
    lines.push(`pid ${pid} ${field("State")} ppid ${field("PPid")}: ${command || field("Name")} [${cgroups}]`);
  }
  return lines.join("\n");
}

let ctx: ArenaTestContext;
let redisServer: ChildProcess;
let redisPort: number;
let base: string;
let cluster: LocalCluster;
let token: string;
let canary: Server;
let canaryConnections = 0;
const workers: SpawnedWorker[] = [];
const canaryFiles: string[] = [];

beforeAll(async () => {
  expect(process.getuid?.(), "the stand-in kubelet runs as root").toBe(0);
  base = await mkdtemp(join(tmpdir(), "arena-kube-e2e-"));
  await chmod(base, 0o755);
  // a Redis of this file's own: the probe tries to shut down any Redis it reaches
  redisPort = await freePort();
  redisServer = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    {
      stdio: "ignore",
    },
  );
  await until(async () => {
    const client = new Redis(redisPort, "127.0.0.1", { lazyConnect: true, maxRetriesPerRequest: 0 });
    client.on("error", () => undefined);
    const pong = await client
      .connect()
      .then(() => client.ping())
      .catch(() => undefined);
    client.disconnect();
    return pong;
  }, 10_000);
  ctx = await setupArenaTestContext({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
  token = (await issueToken({ accountName: "kubernetes-prober" })).token;
  // the arena image's files for evaluation pods, as the image's build writes them
  const image = join(base, "image");
  await writePodFiles(image);
  cluster = await startLocalCluster(base, image);
  canary = createServer((s) => {
    canaryConnections += 1;
    s.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
  // world-readable files in the node's scratch folders, which no container should see
  const tag = randomBytes(4).toString("hex");
  for (const dir of ["/tmp", "/var/tmp", "/dev/shm"]) {
    const path = join(dir, `arena-kube-canary-${tag}`);
    await writeFile(path, "canary: the node's scratch", { mode: 0o644 });
    canaryFiles.push(path);
  }
}, 240_000);

afterAll(async () => {
  for (const w of workers) await w.kill();
  await cluster?.stop();
  await resetEventHubForTests();
  await ctx?.teardown();
  canary?.close();
  redisServer?.kill("SIGKILL");
  for (const path of canaryFiles) await rm(path, { force: true });
  await rm(base, { recursive: true, force: true });
});

/** The probe engine, told what to try from inside the engine container: the agent's files and the host's. */
async function probeEngine(): Promise<string> {
  const dir = join(base, "probe-engine");
  await cp(join(repoRoot(), "lib/sim-engine/engines/probe"), dir, { recursive: true });
  const other = join(cluster.storage, "evaluations", "other-evaluation", "a1", "engine");
  const canaryPort = (canary.address() as { port: number }).port;
  const apiPort = Number(new URL(cluster.api.url).port);
  const targets = {
    addresses: ["127.0.0.1", "::1"],
    ports: [3000, 5432, 6379, redisPort, canaryPort, apiPort],
    redisPorts: [6379, redisPort],
    scanLoopback: true,
    unixSockets: [POD_PATHS.tmp, "/arena/exchange/launcher.sock", "/var/run/postgresql/.s.PGSQL.5432"],
    paths: [
      // the agent's container: the pool, the judge's scratch
      { how: "read", path: POD_PATHS.pool, property: "no-pool" },
      { how: "list", path: POD_PATHS.scratch, property: "no-pool" },
      // the node: the storage volume (every evaluation's inputs, the pools), the pods' volumes
      { how: "list", path: cluster.storage, property: "no-arena-state" },
      { how: "list", path: join(cluster.storage, "evaluations"), property: "no-other-inputs" },
      { how: "read", path: join(other, "secret.txt"), property: "no-other-inputs" },
      { how: "list", path: join(cluster.storage, "pools"), property: "no-pool" },
      { how: "read", path: cluster.workerEnv.TEST_POOL_PATH!, property: "no-pool" },
      { how: "list", path: join(base, "node"), property: "no-pool" },
      { how: "read", path: cluster.workerEnv.KUBECONFIG!, property: "no-arena-state" },
      // the target the agent counts with, the stock engine, the root, and the checkout's tokenizer cache and bundles
      { how: "write", path: POD_PATHS.target, property: "arena-code-unwritable" },
      { how: "write", path: POD_PATHS.stockEngine, property: "arena-code-unwritable" },
      { how: "write", path: "/", property: "arena-code-unwritable" },
      { how: "write", path: join(repoRoot(), ".build", "tokenizer-cache"), property: "arena-code-unwritable" },
      { how: "write", path: join(repoRoot(), ".build", "repo-pod-agent"), property: "arena-code-unwritable" },
      { how: "list", path: base, property: "private-tmp" },
      ...canaryFiles.map((path) => ({ how: "read", path, property: "private-tmp" })),
    ],
    hostProcessMarkers: ["workers/main.ts", "vitest", "redis-server", "postgres", "pod-agent"],
    heartbeatSeconds: 1,
  };
  await writeFile(join(dir, "probe-targets.json"), JSON.stringify(targets, null, 2));
  return (await packDirectory(dir)).toString("base64");
}

describe("a whole evaluation through the kubernetes backend, its pod played from its spec", () => {
  it("scores the red-team probe on the hidden pool in two containers under two uids, and holds every sandbox property a pod can", async () => {
    const other = join(cluster.storage, "evaluations", "other-evaluation", "a1", "engine");
    await mkdir(other, { recursive: true });
    await writeFile(join(other, "secret.txt"), "another participant's engine source");
    await sealDirectory(other);
    const worker = spawnWorker({
      ...cluster.workerEnv,
      DATABASE_URL: ctx.databaseUrl,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      QUEUE_PREFIX: ctx.queuePrefix,
      SIM_SPEED: "2",
      GPU_SLOTS: "1",
      KUBE_ENGINE_MEMORY: "1Gi",
      KUBE_AGENT_MEMORY: "4Gi",
      KUBE_ENGINE_CPU: "1",
      KUBE_AGENT_CPU: "1",
      KUBE_UNSCHEDULABLE_GRACE_SECONDS: "0",
    });
    workers.push(worker);

    const evaluate = async () => {
      const response = await submit(
        new Request("http://arena.test/api/submissions", {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            task_id: "qwen3-8b",
            split: "test",
            engine: { inline: await probeEngine() },
            solution: { method: "red-team probe, serving as the stock engine", kind: "other" },
            profile: "ci",
          }),
        }),
        { params: Promise.resolve({}) },
      );
      expect(response.status, await response.clone().text()).toBe(201);
      const created = (await response.json()) as { id: string; evaluationId: string };

      const final = await until(async () => {
        const row = await db().evaluation.findUnique({ where: { id: created.evaluationId } });
        return row && ["scored", "failed", "void", "cancelled"].includes(row.status) ? row : undefined;
      }, 420_000);
      const evaluation = await db().evaluation.findUniqueOrThrow({
        where: { id: created.evaluationId },
        include: { gates: true },
      });
      const stored = await db().evaluationEvent.findMany({
        where: { evaluationId: created.evaluationId },
        orderBy: { seq: "asc" },
      });
      const podName = evaluation.podId!;
      const engineOut = cluster.kubelet.output(podName, ENGINE_CONTAINER);
      const why = [
        `${final.status}: ${final.reason}`,
        `log tail: ${evaluation.logTail ?? "none"}`,
        ...stored.map((e) => `${e.type} ${JSON.stringify(e.data).slice(0, 240)}`),
        ...worker.output.slice(-30),
        ...cluster.kubelet.errors,
        ...cluster.kubelet
          .output(podName, AGENT_CONTAINER)
          .slice(-20)
          .map((l) => `agent: ${l.line}`),
        ...engineOut.filter((l) => l.line.startsWith("launcher")).map((l) => `engine: ${l.line}`),
      ].join("\n");
      const failedGates = evaluation.gates.filter((g) => !g.passed).map((g) => g.check);
      return {
        created,
        evaluation,
        stored,
        podName,
        engineOut,
        why,
        failedGates,
        status: evaluation.status,
        specscore: evaluation.specscore,
      };
    };
    // the sandbox's properties are read from the first evaluation; its gates from the last (judgedHonestly)
    const { first, last, history } = await judgedHonestly(evaluate);
    const { created, evaluation, stored, podName, engineOut, why } = first;
    expect(last.status, last.why + history).toBe("scored");
    expect(last.failedGates, last.why + history).toEqual([]);
    // a SpecScore of 0 with every gate passed: the record says why (a workload's passes, each candidate/stock ratio)
    const record = last.evaluation.result as { reason?: unknown; ratios?: unknown } | null;
    expect(
      last.specscore,
      `${JSON.stringify({ reason: record?.reason, ratios: record?.ratios })}\n${last.why}`,
    ).toBeGreaterThan(0);
    expect(evaluation.status, why).toBe("scored");

    // The pod as the worker asked for it: two containers, two uids, the pool and the judge's scratch in the agent's only.
    const pod = cluster.api.pod(cluster.workerEnv.KUBE_NAMESPACE!, podName) ?? null;
    expect(pod, "the worker deletes the pod once it has ended").toBeNull();
    const spec = cluster.kubelet.spec(podName)!;
    const [engine, agent] = spec.containers as [V1Container, V1Container];
    expect([engine.name, agent.name]).toEqual([ENGINE_CONTAINER, AGENT_CONTAINER]);
    expect([engine.securityContext?.runAsUser, agent.securityContext?.runAsUser]).toEqual([ENGINE_UID, AGENT_UID]);
    const mounted = (c: V1Container) => (c.volumeMounts ?? []).map((m) => m.mountPath);
    expect(mounted(agent)).toContain(POD_PATHS.pool);
    expect(mounted(engine)).not.toContain(POD_PATHS.pool);
    expect(mounted(engine)).not.toContain(POD_PATHS.scratch);
    expect(
      stored.some((e) => JSON.stringify(e.data).includes(`engines run in their own container as uid ${ENGINE_UID}`)),
    ).toBe(true);

    // The probe's own report, from the engine container's log: every attempt of every candidate start failed.
    const log = engineOut.map((l) => l.line).join("\n");
    const starts = [...new Set(parseProbeReport(log).map((l) => l.start))];
    expect(starts.length, "the probe ran at both candidate starts").toBe(2);
    for (const start of starts) {
      const report = parseProbeReport(log).filter((l) => l.start === start);
      expect(
        report.find((l) => l.attack === "done"),
        `${start} ran to its end`,
      ).toBeDefined();
      const identity = report.find((l) => l.attack === "identity")?.detail ?? "";
      expect(identity).toContain(`uid=${ENGINE_UID} gid=${ENGINE_UID} groups= `);
      const verdicts = judgeProbeReport(report);
      expect(
        verdicts
          .filter((v) => !v.held)
          .map((v) => ({ ...v, breaches: v.breaches.map((b) => `${b.target}: ${b.detail}`) })),
        start,
      ).toEqual([]);
      expect(verdicts).toHaveLength(SANDBOX_PROPERTIES.filter((p) => p.probe.length > 0).length);
      // the engine container's memory limit killed the hog, the node's pid limit stopped the fork bomb
      expect(report.find((l) => l.attack === "memory")?.detail).toMatch(/^killed by signal 9 after \d+ MiB/);
      expect(report.find((l) => l.attack === "fork")?.detail).toMatch(/stopped by EAGAIN/);
      // the agent is nowhere the engine can see: its container is another PID namespace
      expect(report.filter((l) => l.kind === "attempt" && l.attack === "see-process" && l.achieved)).toEqual([]);
    }

    // Leftovers: the detached processes' heartbeats stop before the next engine starts.
    const engineStarts = stored
      .filter((e) => e.type === "engine" && (e.data as { state: string }).state === "starting")
      .map((e) => ({ engine: (e.data as { engine: string }).engine, at: e.createdAt.getTime() }));
    expect(engineStarts.map((s) => s.engine)).toEqual(["candidate", "stock", "candidate", "stock"]);
    const beats = engineOut.filter((l) => l.line.includes(PROBE_HEARTBEAT));
    expect(beats.length, "the detached processes ran").toBeGreaterThan(0);
    for (const [i, name] of ["candidate-1", "candidate-3"].entries()) {
      const own = beats.filter((l) => l.line.startsWith(`${name} `));
      expect(own.length, `${name}'s detached processes ran`).toBeGreaterThan(0);
      expect(Math.max(...own.map((l) => l.at)), `${name}'s last heartbeat precedes the next start`).toBeLessThan(
        engineStarts[2 * i + 1]!.at,
      );
    }

    // Nothing reached the host: Redis answers, the canary listener was never connected to.
    const client = new Redis(redisPort, "127.0.0.1", { maxRetriesPerRequest: 1 });
    expect(await client.ping()).toBe("PONG");
    client.disconnect();
    expect(canaryConnections).toBe(0);

    // After the pod: no process of either uid, the evaluation's sealed inputs gone, another's kept.
    const teardownFrom = Date.now();
    const gone = await until(
      async () => ((await pidsOutsideOtherPods(ENGINE_UID)).length === 0 ? true : undefined),
      30_000,
    ).catch(() => false);
    expect(gone, `processes of uid ${ENGINE_UID} outlived the pod:\n${await describeProcesses(ENGINE_UID)}`).toBe(true);
    console.log(`[kube-e2e] the engine's processes were gone ${Date.now() - teardownFrom} ms after the pod was`);
    expect(await describeProcesses(AGENT_UID)).toBe("");
    await until(
      async () =>
        (await stat(join(cluster.storage, "evaluations", created.evaluationId)).catch(() => null)) ? undefined : true,
      10_000,
    );
    expect(await readFile(join(other, "secret.txt"), "utf8")).toMatch(/another participant/);

    // Every property of the protocol's list has its word for the cluster, and the probe's verdicts cover each
    // property it can show; the rest are shown above (leftovers, deleted inputs) or in the launcher's tests.
    expect(Object.keys(KUBERNETES_SANDBOX).sort()).toEqual(SANDBOX_PROPERTIES.map((p) => p.id).sort());
  }, 900_000);
});
