import { readFile } from "node:fs/promises";
import path from "node:path";
import { createPrismaClient, type PrismaClient } from "../../db/client";
import { packDirectory } from "../../engine-archive/pack-directory";
import { processAlive } from "../../pods/local/process-alive";
import { repoRoot } from "../arena-stack";
import type { DrillRow, EvaluationOutcome, ProbeAnswer } from "./drill-table";
import type { ThrowawayArena } from "./throwaway-arena";

export interface DrillContext {
  arena: ThrowawayArena;
  /** A participant's token, for submitting and for the probes. */
  token: string;
  log: (line: string) => void;
  /** How long an evaluation may take to end before it counts as stuck. */
  evaluationTimeoutMs: number;
}

export interface Drill {
  id: string;
  fault: string;
  run(context: DrillContext): Promise<DrillRow>;
}

const TERMINAL = ["scored", "failed", "void", "cancelled"];
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 250): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await sleep(everyMs);
  }
  return undefined;
}

let client: PrismaClient | undefined;
/** The drills' own view of the arena's database (a reconnecting pool: it survives the PostgreSQL drill). */
const db = (arena: ThrowawayArena) => {
  client ??= createPrismaClient(arena.databaseUrl);
  return client;
};

export async function closeDrillDatabase(): Promise<void> {
  await client?.$disconnect();
  client = undefined;
}

let honestEngine: string | undefined;

/** Submits `count` evaluations of an honest engine (the simulated n-gram speculator) under the `ci` profile. */
async function submit(context: DrillContext, count: number): Promise<string[]> {
  honestEngine ??= (await packDirectory(path.join(repoRoot, "lib/sim-engine/engines/ngram"))).toString("base64");
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`${context.arena.url}/api/submissions`, {
      method: "POST",
      headers: { authorization: `Bearer ${context.token}`, "content-type": "application/json" },
      body: JSON.stringify({
        task_id: "qwen3-8b",
        split: "dev",
        engine: { inline: honestEngine },
        solution: { method: "drill", kind: "ngram" },
        profile: "ci",
      }),
    });
    if (response.status !== 201) throw new Error(`a drill's submission was answered ${response.status}`);
    ids.push(((await response.json()) as { evaluationId: string }).evaluationId);
  }
  return ids;
}

/** Waits for an event of the evaluation whose data has `path` equal to `value` (a pass of the candidate's team...). */
async function reached(context: DrillContext, evaluationId: string, type: string, field: string, value: string) {
  const found = await until(
    async () =>
      (await db(context.arena).evaluationEvent.findFirst({
        where: { evaluationId, type, data: { path: [field], equals: value } },
      })) ?? undefined,
    context.evaluationTimeoutMs,
    200,
  );
  if (!found) throw new Error(`${evaluationId} never reached ${type} ${field}=${value}`);
}

/**
 * Asks the API every half second while `fault` runs: the health check, the budget (PostgreSQL only), and a
 * submission (refused as invalid when the arena is healthy: it tells how fast the route answers, and is never
 * charged). Each answer is waited for at most 10 s.
 */
async function probeDuring(context: DrillContext, fault: () => Promise<void>): Promise<ProbeAnswer[]> {
  const answers: ProbeAnswer[] = [];
  const auth = { authorization: `Bearer ${context.token}` };
  const probes: [string, string, RequestInit][] = [
    ["health", "/api/health", {}],
    ["budget", "/api/budget", { headers: auth }],
    [
      "submit",
      "/api/submissions",
      { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: '{"task_id":"x"}' },
    ],
  ];
  let running = true;
  const asking = (async () => {
    while (running) {
      await Promise.all(
        probes.map(async ([name, route, init]) => {
          const started = Date.now();
          const status = await fetch(`${context.arena.url}${route}`, { ...init, signal: AbortSignal.timeout(10_000) })
            .then((response) => response.status)
            .catch(() => 0);
          answers.push({ name, status, ms: Date.now() - started });
        }),
      );
      await sleep(500);
    }
  })();
  try {
    await fault();
  } finally {
    running = false;
    await asking;
  }
  return answers;
}

/** Waits for the evaluations to end (or the timeout), then reads what happened to each. */
async function outcomes(context: DrillContext, ids: string[]): Promise<EvaluationOutcome[]> {
  await until(
    async () =>
      (await db(context.arena).evaluation.count({ where: { id: { in: ids }, status: { in: TERMINAL as never } } })) ===
      ids.length
        ? true
        : undefined,
    context.evaluationTimeoutMs,
    1000,
  );
  const out: EvaluationOutcome[] = [];
  for (const id of ids) {
    const row = await db(context.arena).evaluation.findUniqueOrThrow({ where: { id }, include: { ledger: true } });
    const events = await db(context.arena).evaluationEvent.findMany({
      where: { evaluationId: id, type: { in: ["pass-started", "log"] } },
    });
    const passStarts: Record<string, number> = {};
    let restartedFromZero = false;
    for (const event of events) {
      const data = event.data as { engine?: string; workload?: string; pass?: number; message?: string };
      if (event.type === "pass-started") {
        const key = `${data.engine}/${data.workload}/${data.pass}`;
        passStarts[key] = (passStarts[key] ?? 0) + 1;
      } else if (data.message?.startsWith("resumed as attempt")) restartedFromZero = true;
    }
    out.push({
      status: row.status,
      charges: row.ledger.filter((l) => l.kind === "charge").length,
      refunds: row.ledger.filter((l) => l.kind === "refund").length,
      passStarts,
      restartedFromZero,
    });
  }
  return out;
}

const supervisorSaid = async (arena: ThrowawayArena, line: string, after: number, timeoutMs = 60_000) =>
  until(async () => (arena.supervisorLog.slice(after).some((l) => l.startsWith(line)) ? true : undefined), timeoutMs);

const healthy = async (arena: ThrowawayArena, timeoutMs = 60_000) =>
  until(
    async () =>
      (await fetch(`${arena.url}/api/health`, { signal: AbortSignal.timeout(3_000) })).status === 200
        ? true
        : undefined,
    timeoutMs,
  );

async function killRedis(context: DrillContext, wipe: boolean): Promise<void> {
  const { arena } = context;
  const pid = arena.redis.current()?.pid;
  if (pid === undefined) throw new Error("the private redis-server is not running");
  if (wipe) arena.wipeRedisOnRestart();
  const seen = arena.supervisorLog.length;
  process.kill(pid, "SIGKILL");
  await supervisorSaid(arena, "the private redis-server is running again", seen);
  await healthy(arena);
}

const redisDrill = (wipe: boolean): Drill => ({
  id: wipe ? "redis-wiped" : "redis-killed",
  fault: wipe
    ? "Redis killed mid-queue, restarted without its data"
    : "Redis killed (SIGKILL) mid-queue, restarted from its AOF",
  async run(context) {
    // one running, one waiting behind it
    const ids = await submit(context, 2);
    await reached(context, ids[0]!, "pass-started", "engine", "candidate");
    const answers = await probeDuring(context, () => killRedis(context, wipe));
    return { fault: this.fault, evaluations: await outcomes(context, ids), answers };
  },
});

/** The three points of one evaluation at which the worker is killed. */
const WORKER_POINTS: [string, string, string][] = [
  ["pass-started", "workload", "team"],
  ["pass-started", "engine", "stock"],
  ["phase", "phase", "checks-candidate"],
];

const workerDrill: Drill = {
  id: "worker-killed",
  fault: "worker SIGKILL at 3 points (candidate's team pass, stock passes, checks)",
  async run(context) {
    const { arena } = context;
    const [id] = await submit(context, 1);
    const answers: ProbeAnswer[] = [];
    for (const [type, field, value] of WORKER_POINTS) {
      await reached(context, id!, type, field, value);
      const worker = arena.app.worker.current()?.pid;
      if (worker === undefined) throw new Error("the worker is not running");
      const seen = arena.supervisorLog.length;
      answers.push(
        ...(await probeDuring(context, async () => {
          process.kill(worker, "SIGKILL");
          await supervisorSaid(arena, "the worker process is running again", seen);
          // until the new worker has re-attached (or the evaluation ended meanwhile)
          await until(async () => {
            const row = await db(arena).evaluation.findUniqueOrThrow({ where: { id: id! } });
            return row.leaseOwner && !row.leaseOwner.includes(`:${worker}:`) ? true : undefined;
          }, 120_000);
        })),
      );
    }
    return { fault: this.fault, evaluations: await outcomes(context, [id!]), answers };
  },
};

const postgresDrill: Drill = {
  id: "postgres-down",
  fault: "PostgreSQL down 10 s mid-pass",
  async run(context) {
    const { arena } = context;
    const [id] = await submit(context, 1);
    await reached(context, id!, "pass-started", "workload", "team");
    const answers = await probeDuring(context, async () => {
      await arena.stopPostgres();
      await sleep(10_000);
      await arena.startPostgres();
      await healthy(arena);
    });
    return { fault: this.fault, evaluations: await outcomes(context, [id!]), answers };
  },
};

const webDrill: Drill = {
  id: "web-killed",
  fault: "web process SIGKILL while an evaluation runs",
  async run(context) {
    const { arena } = context;
    const [id] = await submit(context, 1);
    await reached(context, id!, "pass-started", "engine", "candidate");
    const pid = arena.app.web.current()?.pid;
    if (pid === undefined) throw new Error("the web process is not running");
    const pod = await podPid(arena, id!);
    const seen = arena.supervisorLog.length;
    const answers = await probeDuring(context, async () => {
      process.kill(pid, "SIGKILL");
      await supervisorSaid(arena, "the web process is running again", seen);
      await healthy(arena);
    });
    const note = pod !== undefined && !processAlive(pod) ? "its pod did not survive" : undefined;
    return { fault: this.fault, evaluations: await outcomes(context, [id!]), answers, ...(note ? { note } : {}) };
  },
};

async function podPid(arena: ThrowawayArena, evaluationId: string): Promise<number | undefined> {
  const row = await db(arena).evaluation.findUnique({ where: { id: evaluationId } });
  if (!row?.podId) return undefined;
  const file = path.join(arena.dataDir, "local-pods", "pods", `${row.podId}.json`);
  return readFile(file, "utf8").then(
    (text) => (JSON.parse(text) as { pid: number }).pid,
    () => undefined,
  );
}

export const DRILLS: readonly Drill[] = [redisDrill(false), redisDrill(true), workerDrill, postgresDrill, webDrill];
