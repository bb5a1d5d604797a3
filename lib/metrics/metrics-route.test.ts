import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET } from "@/app/api/metrics/route";
import { db } from "../db/client";
import { resetEnvForTests } from "../env";
import { enqueueEvaluation } from "../queue/evaluations-queue";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";

const TOKEN = "metrics-token-for-the-tests";
let context: ArenaTestContext;

async function evaluation(taskId: string, data: Record<string, unknown>) {
  const account = await db().account.create({ data: { name: `metrics ${Math.random()}`, kind: "participant" } });
  const submission = await db().submission.create({
    data: {
      accountId: account.id,
      taskId,
      split: "dev",
      protocolVersion: "1",
      engineSource: "repository",
      engineUri: "org/engine",
      engineRevision: "a".repeat(40),
      kind: "eagle3",
    },
  });
  return db().evaluation.create({ data: { submissionId: submission.id, seed: 1, attempt: 1, ...data } });
}

const scrape = (authorization?: string) =>
  GET(new Request("http://arena.test/api/metrics", { headers: authorization ? { authorization } : {} }), {
    params: Promise.resolve({}),
  });

beforeAll(async () => {
  context = await setupArenaTestContext({ METRICS_TOKEN: TOKEN });
  const started = new Date(Date.now() - 3_600_000);
  const scored = await evaluation("qwen3-8b", {
    status: "scored",
    startedAt: started,
    finishedAt: new Date(started.getTime() + 1_500_000),
    gpuSeconds: 1_480,
  });
  await db().evaluationPhase.createMany({
    data: [
      { evaluationId: scored.id, name: "fetch", startedAt: started, endedAt: new Date(started.getTime() + 4_000) },
      {
        evaluationId: scored.id,
        name: "candidate-timed",
        startedAt: started,
        endedAt: new Date(started.getTime() + 900_000),
      },
    ],
  });
  await evaluation("qwen3-8b", { status: "void", reason: "the pod was lost (unschedulable)", gpuSeconds: 12 });
  await evaluation("qwen35-27b", { status: "void", reason: "the pod was lost (agent-crashed)" });
  await evaluation("qwen35-27b", { status: "void", reason: "the evaluation's worker was lost 3 times" });
  await evaluation("qwen35-27b", { status: "void", reason: "the Hub could not be reached" });
  const queued = await evaluation("qwen3-8b", { status: "queued" });
  await enqueueEvaluation(queued.id);
}, 60_000);

afterAll(async () => {
  await context?.teardown();
  delete process.env.METRICS_TOKEN;
  resetEnvForTests();
});

describe("GET /api/metrics", () => {
  it("asks for the operators' bearer token", async () => {
    expect((await scrape()).status).toBe(401);
    expect((await scrape("Bearer not-the-metrics-token")).status).toBe(401);
    const body = (await (await scrape()).json()) as { error: { code: string } };
    expect(body.error.code).toBe("unauthorized");
  });

  it("serves the queue, evaluations by status, durations, GPU seconds and pod failures, read from PostgreSQL and Redis", async () => {
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const lines = (await response.text()).split("\n");
    const value = (series: string) => {
      const line = lines.find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value("arena_queue_up")).toBe(1);
    expect(value('arena_queue_jobs{state="waiting"}')).toBe(1);
    expect(value('arena_evaluations{status="scored",task="qwen3-8b"}')).toBe(1);
    expect(value('arena_evaluations{status="void",task="qwen35-27b"}')).toBe(3);
    expect(value('arena_evaluations{status="running",task="qwen35-27b"}')).toBe(0);
    expect(value('arena_evaluation_duration_seconds_bucket{status="scored",task="qwen3-8b",le="1200"}')).toBe(0);
    expect(value('arena_evaluation_duration_seconds_bucket{status="scored",task="qwen3-8b",le="1800"}')).toBe(1);
    expect(value('arena_evaluation_duration_seconds_sum{status="scored",task="qwen3-8b"}')).toBe(1500);
    expect(value('arena_evaluation_phase_duration_seconds_bucket{phase="fetch",le="5"}')).toBe(1);
    expect(value('arena_evaluation_phase_duration_seconds_count{phase="candidate-timed"}')).toBe(1);
    expect(value('arena_gpu_seconds_total{status="scored",task="qwen3-8b"}')).toBe(1480);
    expect(value('arena_pod_failures_total{reason="unschedulable"}')).toBe(1);
    expect(value('arena_pod_failures_total{reason="agent-crashed"}')).toBe(1);
    expect(value('arena_pod_failures_total{reason="worker-lost"}')).toBe(1);
    expect(value('arena_pod_failures_total{reason="oom-killed"}')).toBe(0);
    // every series a family names is declared first
    for (const family of ["arena_queue_jobs", "arena_evaluation_duration_seconds", "arena_pod_failures_total"])
      expect(lines).toContain(
        `# TYPE ${family} ${family.endsWith("_seconds") ? "histogram" : family.endsWith("_total") ? "counter" : "gauge"}`,
      );
  });

  it("does not exist without METRICS_TOKEN", async () => {
    delete process.env.METRICS_TOKEN;
    resetEnvForTests();
    const response = await scrape(`Bearer ${TOKEN}`);
    expect(response.status).toBe(404);
    process.env.METRICS_TOKEN = TOKEN;
    resetEnvForTests();
  });
});
