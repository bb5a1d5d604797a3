import { chmod, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { packDirectory } from "../engine-archive/pack-directory";
import { repoRoot as opsRoot, type SupervisedApp, superviseApp } from "../ops/arena-stack";
import { freePort } from "../ops/services";
import { processAlive } from "../pods/local/process-alive";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { simulatedWorkerEnv } from "../testing/spawn-worker";
import { until } from "../testing/until";
import { issueToken } from "../tokens/issue-token";
import { repoRoot } from "./runtime";

// The arena's own supervision (`npm run arena`'s): the app's API as the web process and the real worker, restarted
// when it dies. The worker is killed with SIGKILL at three points of one evaluation; its pod runs on, and each new
// worker re-attaches to it.
let ctx: ArenaTestContext;
let dataDir: string;
let app: SupervisedApp | undefined;
let url: string;
const supervisorLog: string[] = [];
const output: string[] = [];

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  dataDir = await mkdtemp(join(tmpdir(), "arena-worker-death-"));
  await chmod(dataDir, 0o755);
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  app = await superviseApp({
    env: { ...process.env, ...simulatedWorkerEnv(ctx, dataDir) },
    port,
    baseUrl: `${url}/api/health`,
    webCommand: {
      command: process.execPath,
      args: ["--import", "tsx", join(opsRoot, "lib/ops/drills/serve-api.ts"), String(port)],
    },
    write: (line) => {
      output.push(line);
      if (output.length > 600) output.splice(0, output.length - 600);
    },
    log: (line) => supervisorLog.push(line),
  });
});

afterAll(async () => {
  await app?.stop();
  await ctx?.teardown();
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
});

const eventWhere = async (evaluationId: string, type: string, path: string[], equals: string) =>
  (await db().evaluationEvent.findFirst({ where: { evaluationId, type, data: { path, equals } } })) ?? undefined;

/** The log events the worker (not the pod) wrote: the sandbox's note, re-attaches, restarts. */
const workerNote = (message: string) =>
  /^(the engine sandbox |attempt \d+ re-attached|resumed as attempt)/.test(message);

describe("a worker killed with SIGKILL in the middle of an evaluation, three times", () => {
  it("leaves the web app serving, and the evaluation scored on its first pod: no pass replayed, every event stored once", async () => {
    const { token } = await issueToken({ accountName: "crash-test" });
    const inline = (await packDirectory(join(repoRoot(), "lib/sim-engine/engines/ngram"))).toString("base64");
    const created = await fetch(`${url}/api/submissions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task_id: "qwen3-8b",
        split: "dev",
        engine: { inline },
        solution: { kind: "ngram" },
        profile: "ci",
      }),
    });
    expect(created.status).toBe(201);
    const { id, evaluationId } = (await created.json()) as { id: string; evaluationId: string };

    // the web app is asked all along: the evaluation's page data and the health check
    const answers: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        for (const path of [`/api/submissions/${id}`, "/api/health"]) {
          const status = await fetch(`${url}${path}`, {
            headers: { authorization: `Bearer ${token}` },
            signal: AbortSignal.timeout(5_000),
          }).then(
            (r) => r.status,
            () => 0,
          );
          answers.push(status);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })();

    const points: [string, () => Promise<unknown>][] = [
      ["the candidate's team pass", () => eventWhere(evaluationId, "pass-started", ["workload"], "team")],
      ["the stock engine's passes", () => eventWhere(evaluationId, "pass-started", ["engine"], "stock")],
      ["the checks", () => eventWhere(evaluationId, "phase", ["phase"], "checks-candidate")],
    ];
    let podId: string | undefined;
    try {
      for (const [i, [point, reached]] of points.entries()) {
        await until(reached, 420_000, 100);
        const row = await db().evaluation.findUniqueOrThrow({ where: { id: evaluationId } });
        podId ??= row.podId!;
        expect(row.podId, point).toBe(podId);
        expect(row.attempt, point).toBe(i + 1);
        const pod = JSON.parse(await readFile(join(dataDir, "local-pods", "pods", `${podId}.json`), "utf8")) as {
          pid: number;
        };
        const worker = app!.worker.current()!.pid!;
        process.kill(worker, "SIGKILL");
        await until(async () => (processAlive(worker) ? undefined : true), 10_000, 20);
        // the pod is not the worker's: it runs on
        expect(processAlive(pod.pid), point).toBe(true);
        await until(
          async () =>
            (await db().evaluationEvent.count({
              where: { evaluationId, type: "log", data: { path: ["message"], string_starts_with: "attempt" } },
            })) ===
            i + 1
              ? true
              : undefined,
          180_000,
          200,
        );
      }
      await until(async () => {
        const row = await db().evaluation.findUnique({ where: { id: evaluationId } });
        return row && ["scored", "failed", "void", "cancelled"].includes(row.status) ? row : undefined;
      }, 420_000);
    } catch (error) {
      const events = await db().evaluationEvent.findMany({ where: { evaluationId }, orderBy: { seq: "asc" } });
      console.error(events.map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.data).slice(0, 160)}`).join("\n"));
      console.error([...supervisorLog, ...output.slice(-80)].join("\n"));
      // what the pod's agent said last (its stack, or a signal's silence), for a pod that ended under the test
      const logs = join(dataDir, "local-pods", "logs");
      for (const pod of await readdir(logs).catch(() => [] as string[]))
        console.error(
          `${pod}'s agent log:\n${(await readFile(join(logs, pod, "agent.log"), "utf8").catch(() => "")).slice(-3000)}`,
        );
      throw error;
    } finally {
      probing = false;
      await probe;
    }

    const done = await db().evaluation.findUniqueOrThrow({
      where: { id: evaluationId },
      include: { ledger: true, passes: true },
    });
    // scored: measured to its end (a gate the simulated engine fails by chance on a loaded machine is still a score)
    expect(done.status, done.reason ?? "").toBe("scored");
    expect(done.podId).toBe(podId);
    expect(done.attempt).toBe(4);
    expect(done.ledger.map((l) => l.kind)).toEqual(["charge"]);
    // three deaths, three restarts of the worker, the web process never touched
    expect(supervisorLog.filter((l) => l.startsWith("the worker process exited (signal SIGKILL)"))).toHaveLength(3);
    expect(supervisorLog.filter((l) => l.startsWith("the web process"))).toEqual([]);
    expect(answers.length).toBeGreaterThan(20);
    expect(answers.filter((status) => status !== 200)).toEqual([]);

    const events = await db().evaluationEvent.findMany({ where: { evaluationId }, orderBy: { seq: "asc" } });
    const messages = events.filter((e) => e.type === "log").map((e) => (e.data as { message: string }).message);
    expect(messages.filter((m) => m.startsWith("attempt"))).toEqual(
      [2, 3, 4].map(
        (n) => `attempt ${n} re-attached to the evaluation's pod after its worker was lost: its passes go on`,
      ),
    );
    // never restarted from zero: each pass played once, each engine started as often as one pod starts it
    expect(messages.filter((m) => m.startsWith("resumed as attempt"))).toEqual([]);
    const key = (e: (typeof events)[number]) => {
      const d = e.data as { engine: string; workload: string; pass: number };
      return `${d.engine}/${d.workload}/${d.pass}`;
    };
    for (const type of ["pass-started", "pass-ended"]) {
      const keys = events.filter((e) => e.type === type).map(key);
      expect(keys, type).toHaveLength(18);
      expect(new Set(keys).size, type).toBe(18);
    }
    expect(done.passes).toHaveLength(18);
    const starts = events.filter((e) => e.type === "engine" && (e.data as { state: string }).state === "starting");
    expect(starts.map((e) => (e.data as { engine: string }).engine)).toEqual([
      "candidate",
      "stock",
      "candidate",
      "stock",
    ]);
    // every event the pod numbered is in the log once: as many as its last number
    const fromPod = events.filter(
      (e) =>
        !["status", "sealed"].includes(e.type) &&
        !(e.type === "log" && workerNote((e.data as { message: string }).message)),
    );
    expect(fromPod).toHaveLength(done.podSeq);
    // nothing of the pod is left once the evaluation is over
    await until(
      async () =>
        (await readdir(join(dataDir, "local-pods", "pods")).catch(() => [] as string[])).length === 0
          ? true
          : undefined,
      20_000,
    );
  }, 1_200_000);
});
