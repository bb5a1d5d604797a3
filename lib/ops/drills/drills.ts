import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { gzipSync } from "node:zlib";
import { createPrismaClient, type PrismaClient } from "../../db/client";
import { packDirectory } from "../../engine-archive/pack-directory";
import { writeTar } from "../../engine-archive/write-tar";
import { processAlive } from "../../pods/local/process-alive";
import { setRegistrationOpen } from "../../settings/registration";
import { issueToken } from "../../tokens/issue-token";
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

/** An engine whose launch.sh gives up at once: each admitted evaluation ends within seconds (scored 0, charged). */
const ENGINE_THAT_GIVES_UP = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\nexit 1\n"), mode: 0o755 }]),
).toString("base64");

/** The statuses of a batch of answers, as the table prints them. */
const answered = (name: string, statuses: number[], ms: number): ProbeAnswer[] =>
  statuses.map((status) => ({ name, status, ms }));

const budgetEdgeDrill: Drill = {
  id: "budget-edge",
  fault: "50 concurrent submissions at a budget edge (test split, 3 left)",
  async run(context) {
    const { arena } = context;
    const { token, accountId } = await issueToken({ accountName: `budget-edge-${Date.now()}` });
    const started = Date.now();
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        fetch(`${arena.url}/api/submissions`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
          body: JSON.stringify({
            task_id: "qwen3-8b",
            split: "test",
            engine: { inline: ENGINE_THAT_GIVES_UP },
            solution: { method: `budget edge ${i}`, kind: "other" },
            profile: "ci",
          }),
        }).then(async (r) => ({ status: r.status, body: (await r.json()) as { evaluationId?: string } })),
      ),
    );
    const ms = Date.now() - started;
    const ids = responses.flatMap((r) => (r.status === 201 && r.body.evaluationId ? [r.body.evaluationId] : []));
    const charges = await db(arena).budgetLedger.count({ where: { accountId, kind: "charge", split: "test" } });
    const note =
      ids.length !== 3 || charges !== 3
        ? `${ids.length} admitted and ${charges} charged against a budget of 3`
        : undefined;
    return {
      fault: this.fault,
      evaluations: await outcomes(context, ids),
      answers: answered(
        "submit",
        responses.map((r) => r.status),
        ms,
      ),
      ...(note ? { note } : {}),
    };
  },
};

const registrationDrill: Drill = {
  id: "registration-race",
  fault: "10 concurrent registrations of one name",
  async run(context) {
    const { arena } = context;
    const name = `race-${Date.now()}`;
    await setRegistrationOpen(true);
    try {
      const started = Date.now();
      const statuses = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${arena.url}/api/register`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name }),
          }).then((r) => r.status),
        ),
      );
      const ms = Date.now() - started;
      const account = await db(arena).account.findUnique({ where: { name }, include: { tokens: true } });
      const created = statuses.filter((s) => s === 201).length;
      const note =
        created !== 1 || statuses.some((s) => s !== 201 && s !== 409) || account?.tokens.length !== 1
          ? `${created} registered, ${account?.tokens.length ?? 0} tokens for the one name`
          : undefined;
      return {
        fault: this.fault,
        evaluations: [],
        answers: answered("register", statuses, ms),
        ...(note ? { note } : {}),
      };
    } finally {
      await setRegistrationOpen(false);
    }
  },
};

const bruteForceDrill: Drill = {
  id: "brute-force",
  fault: "400 wrong tokens, X-Forwarded-For rotated on each",
  async run(context) {
    const { arena } = context;
    const answers: ProbeAnswer[] = [];
    let withoutRetryAfter = 0;
    for (let batch = 0; batch < 8; batch++) {
      const started = Date.now();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          fetch(`${arena.url}/api/budget`, {
            headers: {
              authorization: `Bearer spa_${randomBytes(24).toString("base64url")}`,
              "x-forwarded-for": `203.0.113.${(batch * 50 + i) % 250}`,
            },
          }).then((r) => ({ status: r.status, retryAfter: r.headers.get("retry-after") })),
        ),
      );
      withoutRetryAfter += results.filter((r) => r.status === 429 && !r.retryAfter).length;
      answers.push(
        ...answered(
          "budget",
          results.map((r) => r.status),
          Date.now() - started,
        ),
      );
    }
    const limited = answers.filter((a) => a.status === 429).length;
    const let_in = answers.filter((a) => a.status < 400).length;
    const note =
      limited === 0 || let_in > 0 || withoutRetryAfter > 0
        ? `${limited} refused with 429 (${withoutRetryAfter} without Retry-After), ${let_in} let in`
        : undefined;
    return { fault: this.fault, evaluations: [], answers, ...(note ? { note } : {}) };
  },
};

export const DRILLS: readonly Drill[] = [
  redisDrill(false),
  redisDrill(true),
  workerDrill,
  postgresDrill,
  webDrill,
  budgetEdgeDrill,
  registrationDrill,
  // last: its failed attempts hold the loopback address's limit for a minute
  bruteForceDrill,
];
