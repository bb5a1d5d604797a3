import { db } from "../db/client";
import { EvaluationStatus } from "../db/generated/enums";
import { TASK_IDS } from "../protocol/types";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { POD_FAILURE_REASONS, podFailureOf } from "./pod-failure";
import type { HistogramSeries, MetricFamily } from "./prometheus-text";

/** An evaluation's life runs from minutes (smoke) to about two hours (full, with the checks). */
const EVALUATION_BUCKETS = [60, 300, 600, 1200, 1800, 2700, 3600, 5400, 7200, 10_800];
/** A phase: seconds (a pod starting) to the better part of an hour (a full profile's timed passes). */
const PHASE_BUCKETS = [1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600];
const QUEUE_STATES = [
  "waiting",
  "active",
  "delayed",
  "prioritized",
  "waiting-children",
  "completed",
  "failed",
] as const;

interface StatusRow {
  status: string;
  task: string;
  evaluations: number;
  gpu_seconds: number;
}
interface DurationRow {
  status: string;
  task: string;
  seconds: number;
}
interface PhaseRow {
  name: string;
  seconds: number;
}

function histogram(rows: Array<{ labels: Record<string, string>; seconds: number }>): HistogramSeries[] {
  const series = new Map<string, HistogramSeries & { values: number[] }>();
  for (const row of rows) {
    const key = JSON.stringify(row.labels);
    if (!series.has(key)) series.set(key, { labels: row.labels, values: [] });
    series.get(key)!.values.push(row.seconds);
  }
  return [...series.values()];
}

/**
 * What operators watch, read from PostgreSQL (the source of truth) and the queue: the queue's depth by state,
 * evaluations by status and task, how long evaluations and their phases took, the GPU seconds spent, and why pods
 * failed. The queue's figures are absent, and arena_queue_up 0, while Redis cannot be reached.
 */
export async function collectMetrics(): Promise<MetricFamily[]> {
  const [statusRows, durationRows, phaseRows, voids] = await Promise.all([
    db().$queryRaw<StatusRow[]>`
      SELECT e.status::text AS status, s."taskId" AS task, count(*)::int AS evaluations,
             coalesce(sum(e."gpuSeconds"), 0)::float8 AS gpu_seconds
      FROM "Evaluation" e JOIN "Submission" s ON s.id = e."submissionId"
      GROUP BY 1, 2`,
    db().$queryRaw<DurationRow[]>`
      SELECT e.status::text AS status, s."taskId" AS task,
             extract(epoch FROM e."finishedAt" - e."startedAt")::float8 AS seconds
      FROM "Evaluation" e JOIN "Submission" s ON s.id = e."submissionId"
      WHERE e."finishedAt" IS NOT NULL AND e."startedAt" IS NOT NULL`,
    db().$queryRaw<PhaseRow[]>`
      SELECT name, extract(epoch FROM "endedAt" - "startedAt")::float8 AS seconds
      FROM "EvaluationPhase" WHERE "endedAt" IS NOT NULL`,
    db().evaluation.findMany({ where: { status: "void" }, select: { reason: true } }),
  ]);
  const queue = await evaluationsQueue()
    .getJobCounts(...QUEUE_STATES)
    .catch(() => null);

  const tasks = [...new Set([...TASK_IDS, ...statusRows.map((r) => r.task)])];
  const count = (status: string, task: string) =>
    statusRows.find((r) => r.status === status && r.task === task)?.evaluations ?? 0;
  const failures = new Map<string, number>(POD_FAILURE_REASONS.map((r) => [r, 0]));
  for (const { reason } of voids) {
    const why = podFailureOf(reason);
    if (why) failures.set(why, (failures.get(why) ?? 0) + 1);
  }

  return [
    {
      name: "arena_queue_up",
      help: "1 while the evaluations queue (Redis) answers",
      type: "gauge",
      samples: [{ labels: {}, value: queue ? 1 : 0 }],
    },
    {
      name: "arena_queue_jobs",
      help: "Jobs in the evaluations queue, by state (waiting: the queue's depth)",
      type: "gauge",
      samples: queue ? QUEUE_STATES.map((state) => ({ labels: { state }, value: queue[state] ?? 0 })) : [],
    },
    {
      name: "arena_evaluations",
      help: "Evaluations by status and task",
      type: "gauge",
      samples: tasks.flatMap((task) =>
        Object.values(EvaluationStatus).map((status) => ({ labels: { status, task }, value: count(status, task) })),
      ),
    },
    {
      name: "arena_evaluation_duration_seconds",
      help: "From an evaluation's start to its end, by how it ended and task",
      type: "histogram",
      buckets: EVALUATION_BUCKETS,
      series: histogram(durationRows.map((r) => ({ labels: { status: r.status, task: r.task }, seconds: r.seconds }))),
    },
    {
      name: "arena_evaluation_phase_duration_seconds",
      help: "How long each phase of an evaluation took (fetch, starting, candidate-timed, ...)",
      type: "histogram",
      buckets: PHASE_BUCKETS,
      series: histogram(phaseRows.map((r) => ({ labels: { phase: r.name }, seconds: r.seconds }))),
    },
    {
      name: "arena_gpu_seconds_total",
      help: "GPU seconds evaluation pods held, by the evaluation's status and task",
      type: "counter",
      samples: statusRows.map((r) => ({ labels: { status: r.status, task: r.task }, value: r.gpu_seconds })),
    },
    {
      name: "arena_pod_failures_total",
      help: "Evaluations voided because their pod (or its worker) was lost, by why",
      type: "counter",
      samples: [...failures].map(([reason, value]) => ({ labels: { reason }, value })),
    },
  ];
}
