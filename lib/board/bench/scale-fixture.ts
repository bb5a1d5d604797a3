import { randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "@/lib/db/generated/client";
import type { EvaluationStatus, SolutionKind } from "@/lib/db/generated/enums";
import { buildRecord, type MeasuredFigures } from "@/lib/gates/record/build-record";
import type { LatencySummary } from "@/lib/gates/record/schema";
import { currentProtocol, FULL_PROFILE, TASK_IDS, type TaskId, WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";

/**
 * An arena at scale for the board's benchmark: `accounts` accounts (participants, a few study agents, the
 * reference account) and `evaluations` evaluations of both tasks, dev and test, under the full protocol and the
 * test profiles, in every state: ranked, failed gates (scored 0 with their reason), candidates that never started
 * (scored 0, no record), failed, void (refunded), cancelled and still running; every measured one with its record
 * (through the real record builder), its 18 passes and its gate rows, and every one with its budget charge.
 * Deterministic from `seed`.
 */
export interface ScaleOptions {
  accounts: number;
  evaluations: number;
  seed: number;
}

export interface ScaleCounts {
  accounts: number;
  evaluations: number;
  byStatus: Record<string, number>;
  passes: number;
  gates: number;
}

/** mulberry32: the same seed gives the same arena. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    between: (lo: number, hi: number) => lo + (hi - lo) * next(),
  };
}
type Gen = ReturnType<typeof generator>;

const METHODS: { method: string; kind: SolutionKind }[] = [
  { method: "EAGLE-3 k=4", kind: "eagle3" },
  { method: "EAGLE-3 k=6, tree 2", kind: "eagle3" },
  { method: "n-gram k=4", kind: "ngram" },
  { method: "suffix decoding", kind: "suffix" },
  { method: "Qwen3-0.6B draft k=4", kind: "draft" },
  { method: "MTP k=3", kind: "mtp" },
  { method: "DSpark b8 ft3 k=7", kind: "other" },
];
const REFERENCES: Record<TaskId, { key: string; method: string; kind: SolutionKind }[]> = {
  "qwen3-8b": [
    { key: "stock", method: "stock engine (A/A)", kind: "other" },
    { key: "ngram-4", method: "n-gram k=4", kind: "ngram" },
    { key: "draft-qwen3-0.6b-4", method: "Qwen3-0.6B draft k=4", kind: "draft" },
    { key: "eagle3-redhatai-3", method: "EAGLE-3 RedHatAI k=3", kind: "eagle3" },
  ],
  "qwen35-27b": [
    { key: "stock", method: "stock engine (A/A)", kind: "other" },
    { key: "ngram-4", method: "n-gram k=4", kind: "ngram" },
    { key: "mtp-1", method: "MTP k=1", kind: "mtp" },
    { key: "mtp-2", method: "MTP k=2", kind: "mtp" },
    { key: "mtp-3", method: "MTP k=3", kind: "mtp" },
  ],
};
const STOCK_TTFT = { solo: 90, team: 140, busy: 420 } as const;
const STOCK_TPOT = { solo: 7.2, team: 9.5, busy: 16 } as const;

const latency = (ttft: number, tpot: number): LatencySummary => ({
  ttft_ms: { p50: ttft, p90: ttft * 2.4, p99: ttft * 5.1 },
  tpot_ms: { p50: tpot, p90: tpot * 1.6, p99: tpot * 2.7 },
});

type Failure = "none" | "likelihood" | "memory" | "fidelity" | "greedy";

/** Figures shaped like a real evaluation's, from a speedup level; `failure` breaks one gate. */
function figures(g: Gen, task: TaskId, level: number, failure: Failure, profile: string): MeasuredFigures {
  const passes = {} as Record<WorkloadId, number[]>;
  const scale = { solo: 1, team: 0.75, busy: 0.6 } as const;
  for (const w of WORKLOAD_IDS) {
    const r = Math.max(0.3, 1 + (level - 1) * scale[w]);
    passes[w] = [0, 1, 2].map(() => Math.round(r * g.between(0.98, 1.02) * 1000) / 1000);
  }
  const pair = { requests: 64, unanswered: g.int(10) === 0 ? 1 : 0 };
  const lengths = { ratio: g.between(0.98, 1.02), low: 0.95, high: 1.05, paired: true, replies: 300 + g.int(300) };
  const gap = failure === "likelihood" ? -0.09 : g.between(-0.01, 0.01);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[1]!;
  const acceptance = level <= 1.02 ? null : Math.round((1 + level * 0.9) * 100) / 100;
  return {
    task,
    passes,
    greedyAgreement: failure === "greedy" ? 0.31 : g.between(0.74, 0.99),
    likelihood: { gap, se: 0.014 + g.between(0, 0.006), candidate: -0.7 + gap, stock: -0.7 },
    argmax: { gap: g.between(-0.002, 0.002), se: 0.003, candidate: 0.14, stock: 0.14 },
    fidelity: failure === "fidelity" ? 0.087 : 0,
    lengths: { solo: lengths, team: lengths, busy: lengths, pooled: { ...lengths, low: 0.97, high: 1.03 } },
    memory: { peak_mib: failure === "memory" ? 178500 : 160000 + g.int(8000), allowed_mib: 169119.1 },
    offload: [],
    answers: {
      greedy: { candidate: pair, stock: { requests: 64, unanswered: 0 } },
      likelihood: { candidate: pair, stock: { requests: 512, unanswered: 0 } },
      fidelity: { candidate: pair, stock: { requests: 64, unanswered: 0 } },
    },
    acceptance: { solo: acceptance, team: acceptance, busy: acceptance },
    latency: Object.fromEntries(
      WORKLOAD_IDS.map((w) => [
        w,
        {
          candidate: latency(STOCK_TTFT[w] * (1.05 + 0.1 / median(passes[w])), STOCK_TPOT[w] / median(passes[w])),
          stock: latency(STOCK_TTFT[w], STOCK_TPOT[w]),
        },
      ]),
    ),
    cacheHits: Object.fromEntries(
      WORKLOAD_IDS.map((w) => [
        w,
        {
          candidate: { token_weighted: g.between(0.78, 0.86), per_request: g.between(0.7, 0.78) },
          stock: { token_weighted: 0.83, per_request: 0.75 },
        },
      ]),
    ),
    reproducibility: {
      profile,
      seeds: { sessions: g.int(2 ** 31) },
      engine_archive_sha256: null,
      speculator_commit: null,
      speculator_sha256: null,
      image: currentProtocol().image.reference,
      device: "NVIDIA B200",
    },
  };
}

/** What a pass-ended event's summary holds (lib/pods/agent/run-pod.ts), as stored with each pass. */
function passSummary(g: Gen, w: WorkloadId, speedRatio: number) {
  const ttft = STOCK_TTFT[w] * g.between(0.9, 1.2);
  const tpot = STOCK_TPOT[w] / speedRatio;
  return {
    ttft_ms: { p50: ttft, p90: ttft * 2.4, p99: ttft * 5, mean: ttft * 1.4, count: 200 + g.int(400) },
    tpot_ms: { p50: tpot, p90: tpot * 1.6, p99: tpot * 2.7, mean: tpot * 1.2, count: 200 + g.int(400) },
    cache_hit: { tokenWeighted: g.between(0.78, 0.86), perRequest: g.between(0.7, 0.78) },
    acceptance: speedRatio > 1.02 ? 1 + speedRatio : null,
    lateness_ms: { p50: 0.2, p90: 0.4, p99: 0.9, mean: 0.25, count: 400, max: 2.1 },
  };
}

const chunks = <T>(xs: readonly T[], n: number): T[][] =>
  Array.from({ length: Math.ceil(xs.length / n) }, (_, i) => xs.slice(i * n, (i + 1) * n));

/** Fills an empty, migrated and seeded database (seedDatabase) with the arena at scale. */
export async function seedScale(prisma: PrismaClient, options: ScaleOptions): Promise<ScaleCounts> {
  const g = generator(options.seed);
  const protocol = currentProtocol();
  const reference = await prisma.account.findUniqueOrThrow({ where: { name: "reference" } });
  const start = Date.parse("2026-08-01T00:00:00Z");
  const spanMs = 100 * 24 * 3600 * 1000;

  const studies = Math.max(1, Math.round(options.accounts / 100));
  const existing = await prisma.account.count();
  const people = Array.from({ length: Math.max(0, options.accounts - existing) }, (_, i) => ({
    id: randomUUID(),
    name: i < studies ? `study agent ${i + 1}` : `participant ${String(i + 1).padStart(4, "0")}`,
    kind: i < studies ? ("study" as const) : ("participant" as const),
    createdAt: new Date(start + g.int(spanMs / 2)),
  }));
  for (const part of chunks(people, 1000)) await prisma.account.createMany({ data: part });
  // a few accounts submit a lot, most a little (as on any leaderboard)
  const weights = people.map(() => 1 / (1 + g.int(40)));
  const total = weights.reduce((a, b) => a + b, 0);
  const pickAccount = () => {
    let x = g.next() * total;
    for (let i = 0; i < people.length; i++) {
      x -= weights[i]!;
      if (x <= 0) return people[i]!;
    }
    return people.at(-1)!;
  };

  const submissions: Prisma.SubmissionCreateManyInput[] = [];
  const evaluations: Prisma.EvaluationCreateManyInput[] = [];
  const passes: Prisma.EvaluationPassCreateManyInput[] = [];
  const gates: Prisma.GateResultCreateManyInput[] = [];
  const ledger: Prisma.BudgetLedgerCreateManyInput[] = [];
  const byStatus: Record<string, number> = {};
  const referenceRuns = Math.max(4 * TASK_IDS.length, Math.round(options.evaluations * 0.006));

  for (let i = 0; i < options.evaluations; i++) {
    const isReference = i < referenceRuns;
    const task = isReference ? TASK_IDS[i % TASK_IDS.length]! : g.pick(TASK_IDS);
    const ref = isReference ? g.pick(REFERENCES[task]) : null;
    const account = isReference ? reference : pickAccount();
    const split = isReference ? "test" : g.next() < 0.8 ? "dev" : "test";
    const p = g.next();
    const profile = isReference || p < 0.88 ? FULL_PROFILE : p < 0.96 ? "smoke" : "ci";
    const method = ref ?? g.pick(METHODS);
    const queuedAt = new Date(start + g.int(spanMs));
    const s = g.next();
    const status: EvaluationStatus = isReference
      ? "scored"
      : s < 0.74
        ? "scored"
        : s < 0.84
          ? "failed"
          : s < 0.9
            ? "void"
            : s < 0.95
              ? "cancelled"
              : g.pick(["queued", "fetching", "running", "checking"] as const);
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    const submissionId = randomUUID();
    const evaluationId = randomUUID();
    submissions.push({
      id: submissionId,
      accountId: account.id,
      taskId: task,
      split,
      protocolVersion: protocol.version,
      profile,
      speculatorUri: method.kind === "ngram" || method.kind === "suffix" ? null : `org-${g.int(300)}/speculator-${i}`,
      speculatorRevision:
        method.kind === "ngram"
          ? null
          : g
              .int(16 ** 8)
              .toString(16)
              .padStart(40, "0"),
      engineSource: "repository",
      engineUri: `org-${g.int(300)}/engine`,
      engineRevision: g
        .int(16 ** 8)
        .toString(16)
        .padStart(40, "a"),
      method: method.method,
      kind: method.kind,
      referenceKey: ref?.key ?? null,
      createdAt: queuedAt,
    });
    const finished = status !== "queued" && status !== "fetching" && status !== "running" && status !== "checking";
    const startedAt = status === "queued" || status === "cancelled" ? null : new Date(queuedAt.getTime() + 60_000);
    const finishedAt = finished ? new Date(queuedAt.getTime() + (30 + g.int(90)) * 60_000) : null;
    let specscore: number | null = null;
    let result: Prisma.InputJsonValue | undefined;
    let reason: string | null = null;
    if (status === "scored") {
      const f = g.next();
      if (!isReference && f < 0.03) {
        reason = "the candidate engine did not answer /health within 30 minutes";
        specscore = 0;
      } else {
        const failure: Failure =
          isReference || f >= 0.15 ? "none" : g.pick(["likelihood", "memory", "fidelity", "greedy"] as const);
        const level = ref?.key === "stock" ? 1 : ref ? g.between(1.1, 1.8) : g.between(0.7, 2.9);
        const record = buildRecord(figures(g, task, level, failure, profile));
        specscore = record.score;
        reason = record.reason;
        result = JSON.parse(JSON.stringify(record)) as Prisma.InputJsonValue;
        for (const w of WORKLOAD_IDS) {
          for (const [pass, ratio] of record.ratios[w].passes.entries()) {
            const base = { solo: 120, team: 700, busy: 1100 }[w];
            for (const [engine, speed] of [
              ["stock", base],
              ["candidate", base * ratio],
            ] as const) {
              passes.push({
                evaluationId,
                engine,
                workload: w,
                pass,
                speed,
                requests: 40 + g.int(40),
                failed: 0,
                outputTokens: Math.round(speed * 150),
                summary: passSummary(g, w, engine === "stock" ? 1 : ratio),
              });
            }
          }
        }
        for (const row of record.gates) {
          gates.push({ evaluationId, check: row.check, measured: row.measured, limit: row.limit, passed: row.pass });
        }
      }
    } else if (status === "failed") reason = "plugin/ did not install: pip exited 1";
    else if (status === "void") reason = "the pod was lost (pod-lost)";
    evaluations.push({
      id: evaluationId,
      submissionId,
      status,
      attempt: status === "queued" ? 0 : 1,
      phase: finished ? "done" : status === "queued" ? null : "timed passes",
      seed: g.int(2 ** 31),
      reason,
      specscore,
      result,
      gpuSeconds: finished && status !== "cancelled" ? 1800 + g.int(5400) : 0,
      podId: startedAt ? `pod-${i}` : null,
      refunded: status === "void",
      queuedAt,
      startedAt,
      finishedAt,
      updatedAt: finishedAt ?? queuedAt,
    });
    ledger.push({
      accountId: account.id,
      taskId: task,
      split,
      evaluationId,
      kind: "charge",
      amount: 1,
      createdAt: queuedAt,
    });
    if (status === "void" || status === "cancelled") {
      ledger.push({ accountId: account.id, taskId: task, split, evaluationId, kind: "refund", amount: -1 });
    }
  }
  for (const part of chunks(submissions, 1000)) await prisma.submission.createMany({ data: part });
  for (const part of chunks(evaluations, 500)) await prisma.evaluation.createMany({ data: part });
  for (const part of chunks(passes, 5000)) await prisma.evaluationPass.createMany({ data: part });
  for (const part of chunks(gates, 5000)) await prisma.gateResult.createMany({ data: part });
  for (const part of chunks(ledger, 5000)) await prisma.budgetLedger.createMany({ data: part });
  // the planner's statistics, as autovacuum would leave them on a live arena
  await prisma.$executeRawUnsafe("ANALYZE");
  return {
    accounts: await prisma.account.count(),
    evaluations: evaluations.length,
    byStatus,
    passes: passes.length,
    gates: gates.length,
  };
}
