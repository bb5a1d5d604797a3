import type { PrismaClient } from "@/lib/db/generated/client";
import { buildRecord, type MeasuredFigures } from "@/lib/gates/record/build-record";
import type { LatencySummary } from "@/lib/gates/record/schema";
import { currentProtocol, type SolutionKind, type TaskId, WORKLOAD_IDS, type WorkloadId } from "@/lib/protocol";

/**
 * Demo boards for screenshots, the browser tests' reader and local development: the seed home page's entries
 * (001_4aae212a51c90233.txt), judged through the real record builder from figures shaped like theirs. Never run
 * by the arena's start: an arena's boards come from its own evaluations. Every demo account's name ends in
 * "(demo)", so nobody mistakes a demo entry for a real one.
 */
export interface DemoEntry {
  task: TaskId;
  account: string;
  kind: "participant" | "reference";
  split: "dev" | "test";
  method: string;
  solution: SolutionKind;
  referenceKey?: string;
  ratios: Record<WorkloadId, [number, number, number]>;
  acceptance: number | null;
  /** A failing likelihood gap, for a reference that fails the gate. */
  failsLikelihood?: boolean;
  at: string;
}

const r3 = (a: number, b: number, c: number): [number, number, number] => [a, b, c];

export const DEMO_ENTRIES: DemoEntry[] = [
  {
    task: "qwen3-8b",
    account: "DSpark agent (demo)",
    kind: "participant",
    split: "test",
    method: "DSpark b8 ft3 k=7",
    solution: "other",
    ratios: { solo: r3(2.87, 2.65, 2.88), team: r3(1.8, 1.6, 1.61), busy: r3(1.65, 1.55, 1.61) },
    acceptance: 4.1,
    at: "2026-10-24T01:47:00Z",
  },
  {
    task: "qwen3-8b",
    account: "DSpark agent (demo)",
    kind: "participant",
    split: "dev",
    method: "DSpark b8 ft3 k=7",
    solution: "other",
    ratios: { solo: r3(3.0, 2.9, 3.1), team: r3(1.75, 1.7, 1.72), busy: r3(1.7, 1.7, 1.66) },
    acceptance: 4.2,
    at: "2026-10-24T00:27:00Z",
  },
  {
    task: "qwen3-8b",
    account: "FP8 draft agent (demo)",
    kind: "participant",
    split: "test",
    method: "DSpark FP8 k7",
    solution: "draft",
    ratios: { solo: r3(2.18, 2.2, 2.1), team: r3(1.62, 1.6, 1.63), busy: r3(1.56, 1.5, 1.57) },
    acceptance: 3.6,
    at: "2026-10-23T17:01:00Z",
  },
  {
    task: "qwen3-8b",
    account: "FP8 draft agent (demo)",
    kind: "participant",
    split: "dev",
    method: "DSpark FP8 k7",
    solution: "draft",
    ratios: { solo: r3(2.6, 2.7, 2.65), team: r3(2.1, 2.0, 2.05), busy: r3(2.0, 1.9, 1.95) },
    acceptance: 3.9,
    at: "2026-10-23T15:01:00Z",
  },
  {
    task: "qwen3-8b",
    account: "reference",
    kind: "reference",
    split: "test",
    method: "EAGLE-3 RedHatAI k=3",
    solution: "eagle3",
    referenceKey: "eagle3-redhatai-3",
    ratios: { solo: r3(1.34, 1.33, 1.35), team: r3(1.31, 1.3, 1.32), busy: r3(1.21, 1.2, 1.22) },
    acceptance: 2.4,
    at: "2026-10-22T10:00:00Z",
  },
  {
    task: "qwen3-8b",
    account: "reference",
    kind: "reference",
    split: "test",
    method: "stock engine (A/A)",
    solution: "other",
    referenceKey: "stock",
    ratios: { solo: r3(1.0, 1.01, 0.99), team: r3(0.99, 1.0, 0.99), busy: r3(1.01, 1.0, 1.01) },
    acceptance: null,
    at: "2026-10-24T03:15:00Z",
  },
  {
    task: "qwen3-8b",
    account: "reference",
    kind: "reference",
    split: "test",
    method: "n-gram k=4",
    solution: "ngram",
    referenceKey: "ngram-4",
    ratios: { solo: r3(1.0, 1.0, 1.01), team: r3(0.62, 0.61, 0.63), busy: r3(0.6, 0.6, 0.61) },
    acceptance: 1.4,
    at: "2026-10-22T11:00:00Z",
  },
  {
    task: "qwen35-27b",
    account: "MTP agent (demo)",
    kind: "participant",
    split: "test",
    method: "MTP k=6 + fused sampling",
    solution: "mtp",
    ratios: { solo: r3(2.52, 2.5, 2.55), team: r3(1.29, 1.3, 1.28), busy: r3(1.01, 1.0, 1.02) },
    acceptance: 3.8,
    at: "2026-10-23T18:52:00Z",
  },
  {
    task: "qwen35-27b",
    account: "reference",
    kind: "reference",
    split: "test",
    method: "MTP k=3",
    solution: "mtp",
    referenceKey: "mtp-3",
    ratios: { solo: r3(1.74, 1.73, 1.75), team: r3(1.36, 1.35, 1.37), busy: r3(1.01, 1.0, 1.02) },
    acceptance: 2.6,
    at: "2026-10-22T12:00:00Z",
  },
  {
    task: "qwen35-27b",
    account: "reference",
    kind: "reference",
    split: "test",
    method: "n-gram k=4",
    solution: "ngram",
    referenceKey: "ngram-4",
    ratios: { solo: r3(1.25, 1.24, 1.26), team: r3(0.61, 0.6, 0.62), busy: r3(0.66, 0.65, 0.67) },
    acceptance: 1.5,
    failsLikelihood: true,
    at: "2026-10-22T13:00:00Z",
  },
];

const STOCK_TTFT = { solo: 90, team: 140, busy: 420 } as const;
const STOCK_TPOT = { solo: 7.2, team: 9.5, busy: 16 } as const;

function latency(ttft: number, tpot: number): LatencySummary {
  return {
    ttft_ms: { p50: ttft, p90: ttft * 2.4, p99: ttft * 5.1 },
    tpot_ms: { p50: tpot, p90: tpot * 1.6, p99: tpot * 2.7 },
  };
}

function figures(e: DemoEntry): MeasuredFigures {
  const pair = { requests: 64, unanswered: 0 };
  const gap = e.failsLikelihood ? { gap: -0.096, se: 0.0148 } : { gap: -0.004, se: 0.02 };
  const lengths = { ratio: 1.0, low: 0.95, high: 1.04, paired: true, replies: 400 };
  const ratioOf = (w: WorkloadId) => [...e.ratios[w]].sort((a, b) => a - b)[1]!;
  return {
    task: e.task,
    passes: e.ratios,
    greedyAgreement: 0.93,
    likelihood: { ...gap, candidate: -0.7 + gap.gap, stock: -0.7 },
    argmax: { gap: e.failsLikelihood ? 0.019 : 0.0006, se: 0.003, candidate: 0.14, stock: 0.14 },
    fidelity: 0,
    lengths: { solo: lengths, team: lengths, busy: lengths, pooled: { ...lengths, low: 0.97, high: 1.02 } },
    memory: { peak_mib: 166000, allowed_mib: 169119.1 },
    offload: [],
    answers: {
      greedy: { candidate: pair, stock: pair },
      likelihood: { candidate: pair, stock: pair },
      fidelity: { candidate: pair, stock: pair },
    },
    acceptance: { solo: e.acceptance, team: e.acceptance, busy: e.acceptance },
    latency: Object.fromEntries(
      WORKLOAD_IDS.map((w) => [
        w,
        {
          candidate: latency(STOCK_TTFT[w] * (1.05 + 0.1 / ratioOf(w)), STOCK_TPOT[w] / ratioOf(w)),
          stock: latency(STOCK_TTFT[w], STOCK_TPOT[w]),
        },
      ]),
    ),
    cacheHits: Object.fromEntries(
      WORKLOAD_IDS.map((w) => [
        w,
        { candidate: { token_weighted: 0.82, per_request: 0.74 }, stock: { token_weighted: 0.83, per_request: 0.75 } },
      ]),
    ),
    reproducibility: {
      profile: "full",
      seeds: { sessions: 1 },
      engine_archive_sha256: null,
      speculator_commit: null,
      speculator_sha256: null,
      image: currentProtocol().image.reference,
      device: "demo",
    },
  };
}

/** The repository every demo submission names: how the demo tells its own rows from the arena's. */
const DEMO_ENGINES = "speculator-arena/demo-engines";

/** Writes the demo entries (idempotent per account and method); returns the evaluation ids. */
export async function seedDemoBoard(
  prisma: PrismaClient,
  entries: readonly DemoEntry[] = DEMO_ENTRIES,
): Promise<string[]> {
  const protocol = currentProtocol();
  const ids: string[] = [];
  for (const [i, e] of entries.entries()) {
    const account = await prisma.account.upsert({
      where: { name: e.account },
      update: {},
      create: { name: e.account, kind: e.kind },
    });
    // the demo's own rows only: a reference of the same name measured by the arena is not the demo's
    const existing = await prisma.submission.findFirst({
      where: { accountId: account.id, taskId: e.task, split: e.split, method: e.method, engineUri: DEMO_ENGINES },
      include: { evaluations: true },
    });
    if (existing?.evaluations[0]) {
      ids.push(existing.evaluations[0].id);
      continue;
    }
    const record = buildRecord(figures(e));
    const at = new Date(e.at);
    const submission = await prisma.submission.create({
      data: {
        accountId: account.id,
        taskId: e.task,
        split: e.split,
        protocolVersion: protocol.version,
        engineSource: "repository",
        engineUri: DEMO_ENGINES,
        engineRevision: "0".repeat(39) + String(i % 10),
        method: e.method,
        kind: e.solution,
        referenceKey: e.referenceKey ?? null,
        createdAt: at,
      },
    });
    const evaluation = await prisma.evaluation.create({
      data: {
        submissionId: submission.id,
        status: "scored",
        seed: i + 1,
        specscore: record.specscore,
        result: JSON.parse(JSON.stringify(record)),
        reason: record.reason,
        gpuSeconds: 3600,
        queuedAt: at,
        startedAt: at,
        finishedAt: new Date(at.getTime() + 45 * 60_000),
      },
    });
    const base = { solo: 120, team: 700, busy: 1100 } as const;
    await prisma.evaluationPass.createMany({
      data: WORKLOAD_IDS.flatMap((w) =>
        e.ratios[w].flatMap((ratio, p) => [
          {
            evaluationId: evaluation.id,
            engine: "stock",
            workload: w,
            pass: p,
            speed: base[w],
            requests: 40,
            failed: 0,
            outputTokens: base[w] * 150,
          },
          {
            evaluationId: evaluation.id,
            engine: "candidate",
            workload: w,
            pass: p,
            speed: base[w] * ratio,
            requests: 40,
            failed: 0,
            outputTokens: Math.round(base[w] * ratio * 150),
          },
        ]),
      ),
    });
    ids.push(evaluation.id);
  }
  return ids;
}
