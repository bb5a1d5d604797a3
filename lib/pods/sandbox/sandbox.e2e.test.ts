import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmod,
  copyFile,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import { POST as submit } from "@/app/api/submissions/route";
import { db } from "../../db/client";
import { packDirectory } from "../../engine-archive/pack-directory";
import { moveEvaluation } from "../../evaluations/move-evaluation";
import { repoRoot } from "../../evaluations/runtime";
import { sealDirectory } from "../../fetch/seal-directory";
import { DEV_POOL_PATH } from "../../judge";
import { freePort } from "../../ops/services";
import { resetEventHubForTests } from "../../queue/event-hub";
import { SIM_ENGINE_BIN, SIM_ENGINE_DIRS } from "../../sim-engine";
import { type ArenaTestContext, setupArenaTestContext } from "../../testing/arena-test-context";
import { judgedHonestly } from "../../testing/judged-honestly";
import { serveHandler } from "../../testing/serve-handler";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../../testing/spawn-worker";
import { type ReceivedEvent, readSse } from "../../testing/sse-client";
import { until } from "../../testing/until";
import { copyQwen3TokenizerFiles } from "../../tokenizer/packaged-qwen3";
import { REPO_TOKENIZER_CACHE } from "../../tokenizer/tokenizer-cache";
import { issueToken } from "../../tokens/issue-token";
import { buildRepoTokenizerCache } from "../agent/bundle/build-agent-bundle";
import { livePidsOf } from "../agent/engine-user";
import { LocalPodBackend } from "../local/local-pod-backend";
import { processAlive } from "../local/process-alive";
import { cgroupPids, createPodCgroup, killCgroup, podCgroupPlan, removePodCgroup } from "./cgroups";
import { ENTER_ENGINE } from "./engine-command";
import { probeHostSandbox } from "./host-sandbox";
import { POD_PATHS } from "./mount-plan";
import { judgeProbeReport, PROBE_HEARTBEAT, parseProbeReport } from "./probe-report";
import { SANDBOX_PROPERTIES } from "./properties";

// The whole protocol's sandbox on the local backend (the embedded default), shown by a red-team engine inside a real
// evaluation: the real worker, PostgreSQL, a Redis of this file's own (the probe shuts down any Redis it reaches), the
// API, the SSE stream. The sandbox needs root, as CI runs; a worker that is not root gets the degraded pod instead.
const ROOT = process.getuid?.() === 0;
const MARK = "arena-probe-leftover";

let ctx: ArenaTestContext;
let redisServer: ChildProcess;
let redisPort: number;
let hostTmp: string;
let base: string;
let dataDir: string;
let token: string;
let sse: Awaited<ReturnType<typeof serveHandler>>;
let canary: Server;
let canaryConnections = 0;
const canaryFiles: string[] = [];
const workers: SpawnedWorker[] = [];

async function submitEngine(inline: string, split: "dev" | "test"): Promise<{ id: string; evaluationId: string }> {
  const response = await submit(
    new Request("http://arena.test/api/submissions", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task_id: "qwen3-8b",
        split,
        engine: { inline },
        solution: { method: "red-team probe, serving as the stock engine", kind: "other" },
        profile: "ci",
      }),
    }),
    { params: Promise.resolve({}) },
  );
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; evaluationId: string };
}

const eventsUrl = (id: string) => `${sse.url}/api/submissions/${id}/events`;
const isFinal = (e: ReceivedEvent) =>
  e.event === "status" && ["scored", "failed", "void", "cancelled"].includes((e.data as { status: string }).status);

async function hostLeftovers(): Promise<string[]> {
  const found: string[] = [];
  for (const dir of ["/tmp", "/var/tmp", "/dev/shm"])
    for (const name of await readdir(dir).catch(() => [] as string[]))
      if (name.includes(MARK)) found.push(join(dir, name));
  return found;
}

beforeAll(async () => {
  // the probe must find a cache file to try writing, as npm test leaves one
  await buildRepoTokenizerCache();
  hostTmp = await mkdtemp(join(tmpdir(), "arena-sandbox-e2e-"));
  redisPort = await freePort();
  const socket = join(hostTmp, "redis.sock");
  redisServer = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--unixsocket", socket],
    { stdio: "ignore" },
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
  await chmod(socket, 0o777);
  ctx = await setupArenaTestContext({ REDIS_URL: `redis://127.0.0.1:${redisPort}` });
  token = (await issueToken({ accountName: "sandbox-prober" })).token;
  // The arena's state (`.arena`, ARENA_STATE_DIR's default, hidden from every pod) holds this file's data folder
  // (root's; a user other than root, whose pods have no sandbox, gets a temporary folder).
  const stateDir = ROOT ? join(repoRoot(), ".arena") : tmpdir();
  await mkdir(stateDir, { recursive: true });
  base = await mkdtemp(join(stateDir, "sandbox-e2e-"));
  await chmod(base, 0o755);
  dataDir = join(base, "data");
  await writeFile(join(base, "operator-password"), "canary: the arena's state", { mode: 0o600 });
  // Another evaluation's sealed engine, and the hidden test pool, where the arena keeps them.
  const other = join(dataDir, "evaluations", "other-evaluation", "a1", "engine");
  await mkdir(other, { recursive: true });
  await writeFile(join(other, "launch.sh"), "#!/usr/bin/env bash\necho another participant's engine\n");
  await writeFile(join(other, "secret.txt"), "another participant's engine source");
  await sealDirectory(other);
  await mkdir(join(dataDir, "pools"), { recursive: true });
  await copyFile(DEV_POOL_PATH, join(dataDir, "pools", "test.jsonl"));
  // World-readable files in the host's scratch folders, which no pod should see.
  const tag = randomBytes(4).toString("hex");
  for (const dir of ["/tmp", "/var/tmp", "/dev/shm"]) {
    const path = join(dir, `arena-sandbox-canary-${tag}`);
    await writeFile(path, "canary: the host's scratch", { mode: 0o644 });
    canaryFiles.push(path);
  }
  canary = createServer((s) => {
    canaryConnections += 1;
    s.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, "127.0.0.1", r));
  sse = await serveHandler((request) =>
    events(request, { params: Promise.resolve({ id: new URL(request.url).pathname.split("/")[3]! }) }),
  );
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await sse?.close();
  await resetEventHubForTests();
  await ctx?.teardown();
  canary?.close();
  redisServer?.kill("SIGKILL");
  for (const path of canaryFiles) await rm(path, { force: true });
  await rm(hostTmp, { recursive: true, force: true });
  await rm(base, { recursive: true, force: true });
});

async function probeEngine(): Promise<string> {
  const dir = join(hostTmp, "probe-engine");
  await cp(join(repoRoot(), "lib/sim-engine/engines/probe"), dir, { recursive: true });
  const otherEngine = join(dataDir, "evaluations", "other-evaluation", "a1", "engine");
  const hostAddresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && a.family === "IPv4" && !a.internal)
    .map((a) => a!.address);
  const ssePort = Number(new URL(sse.url).port);
  const canaryPort = (canary.address() as { port: number }).port;
  const targets = {
    addresses: ["127.0.0.1", "::1", ...hostAddresses],
    ports: [3000, 5432, 6379, redisPort, ssePort, canaryPort],
    redisPorts: [6379, redisPort],
    scanLoopback: true,
    unixSockets: [join(hostTmp, "redis.sock"), "/var/run/postgresql/.s.PGSQL.5432", "/tmp/.s.PGSQL.5432"],
    paths: [
      { how: "list", path: dataDir, property: "no-arena-state" },
      { how: "read", path: join(base, "operator-password"), property: "no-arena-state" },
      { how: "list", path: join(dataDir, "evaluations"), property: "no-other-inputs" },
      { how: "list", path: otherEngine, property: "no-other-inputs" },
      { how: "read", path: join(otherEngine, "secret.txt"), property: "no-other-inputs" },
      { how: "list", path: join(dataDir, "pools"), property: "no-pool" },
      { how: "read", path: join(dataDir, "pools", "test.jsonl"), property: "no-pool" },
      { how: "list", path: POD_PATHS.agent, property: "no-pool" },
      { how: "read", path: POD_PATHS.pool, property: "no-pool" },
      { how: "list", path: hostTmp, property: "private-tmp" },
      ...canaryFiles.map((path) => ({ how: "read", path, property: "private-tmp" })),
      // beside these, the probe tries the checkout's bundles, launcher and tokenizer cache, found from ARENA_SIM_ENGINE
      { how: "write", path: POD_PATHS.agent, property: "arena-code-unwritable" },
      { how: "write", path: POD_PATHS.target, property: "arena-code-unwritable" },
      { how: "write", path: POD_PATHS.stockEngine, property: "arena-code-unwritable" },
      { how: "write", path: join(repoRoot(), REPO_TOKENIZER_CACHE), property: "arena-code-unwritable" },
    ],
    hostProcessMarkers: ["workers/main.ts", "vitest", "redis-server", "postgres"],
    heartbeatSeconds: 1,
  };
  await writeFile(join(dir, "probe-targets.json"), JSON.stringify(targets, null, 2));
  return (await packDirectory(dir)).toString("base64");
}

/** Each engine start's operators' log in the pod's log folder, by its name (`candidate-1.log`...). */
async function engineLogs(podId: string): Promise<Record<string, string>> {
  const dir = join(dataDir, "local-pods", "logs", podId);
  const out: Record<string, string> = {};
  for (const name of await readdir(dir)) out[name] = await readFile(join(dir, name), "utf8");
  return out;
}

/** The PID namespace of a local pod: its head (`unshare`) stays in the host's; its child, the pod's init, is PID 1 of the pod's. */
async function pidNamespaceOfPod(head: number): Promise<string> {
  const children = (await readFile(`/proc/${head}/task/${head}/children`, "utf8")).trim().split(/\s+/);
  return readlink(`/proc/${children[0]}/ns/pid`);
}

const lineTime = (line: string) => {
  const t = Date.parse(line.slice(0, line.indexOf(" ")));
  return Number.isNaN(t) ? null : t;
};

// The degraded sandbox (not root, or ENGINE_SANDBOX=off) and what its log and record say: lib/pods/local/agent-killed.test.ts.
describe("the engine sandbox on the local backend (as root)", () => {
  beforeAll(() => {
    // the sandbox is made only by root: CI runs as root, and a test run that is not must say why it fails
    expect(ROOT, "the sandbox tests must run as root (namespaces, cgroups, the engine user)").toBe(true);
  });

  it("holds every property against the red-team probe, and the evaluation is still judged: scored, every gate passed", async () => {
    const worker = spawnWorker(
      simulatedWorkerEnv(ctx, dataDir, {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        ENGINE_MEMORY_LIMIT_MB: "1024",
        ENGINE_PIDS_LIMIT: "256",
      }),
    );
    workers.push(worker);
    expect(await hostLeftovers()).toEqual([]);
    const evaluate = async () => {
      const created = await submitEngine(await probeEngine(), "test");
      // a live viewer for the whole evaluation: a forged event would reach it
      const live = await readSse(eventsUrl(created.id), { until: isFinal, timeoutMs: 480_000 });
      const evaluation = await db().evaluation.findUniqueOrThrow({
        where: { id: created.evaluationId },
        include: { gates: true, ledger: true },
      });
      const stored = await db().evaluationEvent.findMany({
        where: { evaluationId: created.evaluationId },
        orderBy: { seq: "asc" },
      });
      const why = `${evaluation.status}: ${evaluation.reason}\n${stored.map((e) => `${e.type} ${JSON.stringify(e.data).slice(0, 200)}`).join("\n")}\n${worker.output.slice(-30).join("\n")}`;
      const failedGates = evaluation.gates.filter((g) => !g.passed).map((g) => g.check);
      return {
        created,
        live,
        evaluation,
        stored,
        why,
        failedGates,
        status: evaluation.status,
        specscore: evaluation.specscore,
      };
    };
    // the sandbox's properties are read from the first evaluation; its gates from the last (judgedHonestly)
    const { first, last, history } = await judgedHonestly(evaluate);
    const { created, live, evaluation, stored, why } = first;
    expect(last.status, last.why + history).toBe("scored");
    expect(last.failedGates, last.why + history).toEqual([]);
    expect(last.specscore).toBeGreaterThan(0);
    expect(evaluation.status, why).toBe("scored");
    expect(evaluation.ledger.map((l) => l.kind)).toEqual(["charge"]);
    // the evaluation's log opens with the sandbox's word, and its record says it was complete
    expect(stored.find((e) => e.type === "log")?.data).toMatchObject({
      level: "info",
      message: "the engine sandbox holds every property it promises",
    });
    const record = evaluation.result as { reproducibility: Record<string, unknown> };
    expect(record.reproducibility.sandbox).toEqual({ backend: "local", complete: true, missing: [] });

    // The probe's own report: every attempt of every start of the candidate failed.
    const logs = await engineLogs(evaluation.podId!);
    const candidateLogs = Object.keys(logs)
      .filter((n) => n.startsWith("candidate-"))
      .sort();
    expect(candidateLogs.length).toBeGreaterThanOrEqual(2);
    let uid: number | null = null;
    for (const name of candidateLogs) {
      const report = parseProbeReport(logs[name]!);
      expect(
        report.find((l) => l.attack === "done"),
        `${name} ran to its end`,
      ).toBeDefined();
      const verdicts = judgeProbeReport(report);
      expect(
        verdicts
          .filter((v) => !v.held)
          .map((v) => ({ ...v, breaches: v.breaches.map((b) => `${b.target}: ${b.detail}`) })),
        name,
      ).toEqual([]);
      expect(verdicts).toHaveLength(SANDBOX_PROPERTIES.filter((p) => p.probe.length > 0).length);
      // the hog died of the cgroup's OOM kill, the fork bomb of the pids limit: the limits, not a failure of the probe
      expect(report.find((l) => l.attack === "memory")?.detail).toMatch(
        /^killed by signal 9 after \d+ MiB \(limit 1024 MiB\)$/,
      );
      expect(report.find((l) => l.attack === "fork")?.detail).toMatch(/stopped by EAGAIN \(limit 256\)$/);
      const identity = report.find((l) => l.attack === "identity")?.detail ?? "";
      uid = Number(/uid=(\d+)/.exec(identity)?.[1]);
      expect(uid).toBeGreaterThan(0);
      expect(identity).toContain("groups= ");
    }

    // Leftovers: the detached processes' heartbeats stop before the next engine (the stock engine) starts.
    const starts = stored
      .filter((e) => e.type === "engine" && (e.data as { state: string }).state === "starting")
      .map((e) => ({ engine: (e.data as { engine: string }).engine, at: e.createdAt.getTime() }));
    expect(starts.map((s) => s.engine)).toEqual(["candidate", "stock", "candidate", "stock"]);
    for (const [i, name] of candidateLogs.entries()) {
      const beats = logs[name]!.split("\n").filter((l) => l.includes(PROBE_HEARTBEAT));
      expect(beats.length, `${name}: its detached processes ran`).toBeGreaterThan(0);
      const last = Math.max(...beats.map((l) => lineTime(l)!));
      expect(last, `${name}'s last heartbeat precedes the next engine's start`).toBeLessThan(starts[2 * i + 1]!.at);
    }

    // Nothing reached the host's services: Redis still answers, no forged event reached the live viewer, the canary
    // listener was never connected to.
    const client = new Redis(redisPort, "127.0.0.1", { maxRetriesPerRequest: 1 });
    expect(await client.ping()).toBe("PONG");
    client.disconnect();
    expect(live.events.filter(isFinal)).toHaveLength(1);
    expect(JSON.stringify(live.events)).not.toMatch(/arena-probe|"specscore":99/);
    expect(canaryConnections).toBe(0);

    // After the pod: no process of the engine's user, nothing it wrote in the host's scratch, the pod's cgroup and
    // work folder gone, and the evaluation's sealed inputs deleted (another evaluation's are not this one's to touch).
    expect(await livePidsOf(uid!)).toEqual([]);
    expect(await hostLeftovers()).toEqual([]);
    expect(await readdir(join(dataDir, "local-pods", "pods"))).toEqual([]);
    for (const controller of ["memory", "pids"])
      await expect(stat(`/sys/fs/cgroup/${controller}/arena-pods/${evaluation.podId}`)).rejects.toThrow();
    await until(
      async () =>
        (await stat(join(dataDir, "evaluations", created.evaluationId)).catch(() => null)) ? undefined : true,
      10_000,
    );
    expect((await stat(join(dataDir, "evaluations", "other-evaluation"))).isDirectory()).toBe(true);
    // the arena's data is root's alone, the hidden pool too
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    expect((await stat(join(dataDir, "pools", "test.jsonl"))).mode & 0o777).toBe(0o600);
  }, 900_000);

  it("keeps a pod whole when its worker is killed (SIGKILL), until the next worker stops it; at its deadline it ends whole", async () => {
    for (const w of workers.splice(0)) await w.kill();
    const env = simulatedWorkerEnv(ctx, dataDir, {
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      RECONCILE_EVERY_MS: "2000",
    });
    const worker = spawnWorker(env);
    workers.push(worker);
    const inline = (await packDirectory(join(repoRoot(), "lib/sim-engine/engines/stock"))).toString("base64");
    const created = await submitEngine(inline, "dev");
    await until(
      async () =>
        (await db().evaluationEvent.findFirst({
          where: { evaluationId: created.evaluationId, type: "pass-started" },
        })) ?? undefined,
      240_000,
    );
    const podId = (await db().evaluation.findUniqueOrThrow({ where: { id: created.evaluationId } })).podId!;
    const pidFile = JSON.parse(await readFile(join(dataDir, "local-pods", "pods", `${podId}.json`), "utf8")) as {
      pid: number;
      engineUser: string;
    };
    const uid = Number(execFileSync("id", ["-u", pidFile.engineUser], { encoding: "utf8" }));
    const podNamespace = await pidNamespaceOfPod(pidFile.pid);
    expect(podNamespace).not.toBe(await readlink("/proc/self/ns/pid"));

    await worker.kill("SIGKILL");
    await new Promise((r) => setTimeout(r, 3_000));
    // the pod outlives its worker only as a whole: its head, and its engine, every one of them in the pod's namespace
    expect(processAlive(pidFile.pid)).toBe(true);
    const engines = await livePidsOf(uid);
    expect(engines.length).toBeGreaterThan(0);
    for (const pid of engines) expect(await readlink(`/proc/${pid}/ns/pid`)).toBe(podNamespace);

    // its evaluation ends while no worker follows it (cancelled): the next worker's sweep stops it, whole
    expect(await moveEvaluation(created.evaluationId, "cancelled", {})).toBe(true);
    const next = spawnWorker(env);
    workers.push(next);
    await until(
      async () => ((await livePidsOf(uid)).length === 0 && !processAlive(pidFile.pid) ? true : undefined),
      120_000,
      100,
    );
    await until(
      async () => ((await readdir(join(dataDir, "local-pods", "pods"))).length === 0 ? true : undefined),
      20_000,
    );
    for (const controller of ["memory", "pids"])
      await expect(stat(`/sys/fs/cgroup/${controller}/arena-pods/${podId}`)).rejects.toThrow();

    // a pod no worker follows ends at its deadline, and everything of it with it: the agent ends, its PID 1 with it,
    // and the kernel kills what was left in the namespace
    const inputs = join(hostTmp, "deadline-inputs");
    await mkdir(join(inputs, "engine"), { recursive: true });
    await writeFile(join(inputs, "engine", "launch.sh"), "#!/usr/bin/env bash\nsleep 600 & exec sleep 601\n", {
      mode: 0o755,
    });
    await mkdir(join(inputs, "speculator"));
    await mkdir(join(inputs, "target"));
    await copyQwen3TokenizerFiles(join(inputs, "target"));
    // a folder of its own: the running worker's sweep stops any pod of its folder whose evaluation it does not know
    const backend = new LocalPodBackend({
      stateDir: join(base, "deadline-pods"),
      agentEnv: { ARENA_ENGINE_RUNTIME: "sim", ARENA_SIM_ENGINE: SIM_ENGINE_BIN, SIM_SPEED: "50" },
    });
    const startedAt = Date.now();
    const pod = await backend.start({
      evaluationId: "deadline-pod",
      attempt: 1,
      taskId: "qwen3-8b",
      profile: "ci",
      seed: 1,
      engineDir: join(inputs, "engine"),
      speculatorDir: join(inputs, "speculator"),
      targetDir: join(inputs, "target"),
      stockEngineDir: join(SIM_ENGINE_DIRS, "stock"),
      deadlineSeconds: 30,
    });
    for await (const event of pod.events) if (event.type === "engine" && event.state === "starting") break;
    pod.detach();
    const deadlineUser = JSON.parse(
      await readFile(join(base, "deadline-pods", "pods", `${pod.podId}.json`), "utf8"),
    ) as { pid: number; engineUser: string };
    const deadlineUid = Number(execFileSync("id", ["-u", deadlineUser.engineUser], { encoding: "utf8" }));
    await until(async () => ((await livePidsOf(deadlineUid)).length > 0 ? true : undefined), 20_000, 100);
    await until(async () => (processAlive(deadlineUser.pid) ? undefined : true), 60_000, 100);
    // it ran until its deadline (30 s from its agent's start), not a moment less, and nothing of it is left
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(30_000);
    expect(await livePidsOf(deadlineUid)).toEqual([]);
    const ended = await backend.attach(pod.podId, 0);
    for await (const _ of ended!.events) {
      // read to its end
    }
    expect(await ended!.exited).toMatchObject({ kind: "failed", reason: "deadline-exceeded" });
  }, 420_000);

  it("kills an engine's memory hog by its cgroup while its parent lives on, and kills every process of the cgroup", async () => {
    const host = await probeHostSandbox();
    expect(host.missing).toEqual({});
    const plan = podCgroupPlan(host.cgroups!, `hog-test-${process.pid}`, { memoryBytes: 128 * 2 ** 20, pids: 64 });
    await createPodCgroup(plan);
    try {
      const script = [
        "import os, subprocess, sys, time",
        "pid = os.fork()",
        "if pid == 0:",
        "    held = [bytearray(b'x') * (16 << 20) for _ in range(32)]",
        "    os._exit(0)",
        "_, status = os.waitpid(pid, 0)",
        "subprocess.Popen(['sleep', '60'], start_new_session=True)",
        "print(f'hog signal {os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0}; parent alive', flush=True)",
        "time.sleep(60)",
      ].join("\n");
      const engine = spawn("bash", [ENTER_ENGINE, "65534", "65534", ...plan.enter, "--", "python3", "-c", script], {
        stdio: ["ignore", "pipe", "inherit"],
        env: { PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv,
      });
      const said = await new Promise<string>((resolve) =>
        engine.stdout!.once("data", (c: Buffer) => resolve(c.toString())),
      );
      expect(said.trim()).toBe("hog signal 9; parent alive");
      expect((await cgroupPids(plan.enter[0]!)).length).toBe(2);
      expect(await killCgroup(plan.enter)).toBe(2);
      for (const dir of plan.enter) expect(await cgroupPids(dir)).toEqual([]);
    } finally {
      await removePodCgroup(plan.enter);
    }
    for (const dir of plan.enter) await expect(stat(dir)).rejects.toThrow();
  }, 60_000);
});
