import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, resetDbForTests } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { resetEnvForTests } from "../env";
import { ensureRedis, freePort, type Service } from "../ops/services";
import { resetRedisForTests } from "../queue/connection";
import { resetEvaluationsQueueForTests } from "../queue/evaluations-queue";
import { serveApp } from "../testing/app-routes";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";

// The API while a datastore is down: an answer within a second or two (503, Retry-After, the API's error shape),
// never a request left hanging, and nothing done. Over real sockets, against a Redis of this file's own.
let ctx: ArenaTestContext;
let redisDir: string;
let redis: Service;
let server: Awaited<ReturnType<typeof serveApp>>;
let token: string;

const inline = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\nexit 3\n"), mode: 0o755 }]),
).toString("base64");

beforeAll(async () => {
  redisDir = await mkdtemp(join(tmpdir(), "arena-503-"));
  redis = await ensureRedis({ dir: join(redisDir, "redis"), port: 0 });
  ctx = await setupArenaTestContext({ REDIS_URL: redis.url });
  token = (await issueToken({ accountName: "patient" })).token;
  server = await serveApp();
});

afterAll(async () => {
  await server?.close();
  await ctx?.teardown();
  await redis?.stop();
  await rm(redisDir, { recursive: true, force: true });
});

async function timed(path: string, init: RequestInit = {}) {
  const started = Date.now();
  const response = await fetch(`${server.url}${path}`, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, retryAfter: response.headers.get("retry-after"), body, ms: Date.now() - started };
}

const submit = () =>
  timed("/api/submissions", {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      task_id: "qwen3-8b",
      split: "dev",
      engine: { inline },
      solution: { kind: "other" },
      profile: "ci",
    }),
  });
const budget = () => timed("/api/budget", { headers: { authorization: `Bearer ${token}` } });

describe("the API while Redis is down", () => {
  it("answers 503 to a submission at once and charges nothing, serves what needs only PostgreSQL, and recovers", async () => {
    expect((await timed("/api/health")).status).toBe(200);
    const port = Number(new URL(redis.url).port);
    process.kill(redis.pid!, "SIGKILL");
    await new Promise((r) => setTimeout(r, 200));

    const refused = await submit();
    expect(refused).toMatchObject({
      status: 503,
      retryAfter: "5",
      body: { error: { code: "unavailable", message: expect.stringMatching(/queue cannot be reached/) } },
    });
    expect(refused.ms).toBeLessThan(2_500);
    expect(await db().submission.count()).toBe(0);
    // the budget is PostgreSQL's: it is answered (the rate limiter counts in memory meanwhile)
    const read = await budget();
    expect(read.status).toBe(200);
    expect(read.ms).toBeLessThan(2_500);
    const health = await timed("/api/health");
    expect(health).toMatchObject({ status: 503, retryAfter: "5", body: { error: { code: "unavailable" } } });
    expect(health.ms).toBeLessThan(2_500);

    redis = await ensureRedis({ dir: join(redisDir, "redis"), port });
    expect((await timed("/api/health")).status).toBe(200);
    const accepted = await submit();
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(201);
    expect(await db().submission.count()).toBe(1);
  }, 30_000);
});

describe("the API while PostgreSQL is down", () => {
  it("answers 503 with Retry-After within a second or two, to the token surface and the health check", async () => {
    // the web process's database is now a server that refuses connections
    process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${await freePort()}/postgres`;
    resetEnvForTests();
    await resetDbForTests();
    await resetRedisForTests();
    await resetEvaluationsQueueForTests();
    try {
      for (const answer of [await budget(), await submit(), await timed("/api/health")]) {
        expect(answer).toMatchObject({
          status: 503,
          retryAfter: "5",
          body: { error: { code: "unavailable", message: expect.stringMatching(/database cannot be reached/) } },
        });
        expect(answer.ms).toBeLessThan(2_500);
        // nothing of the server's own words
        expect(JSON.stringify(answer.body)).not.toMatch(/127\.0\.0\.1|ECONN|Prisma|postgres:/);
      }
    } finally {
      process.env.DATABASE_URL = ctx.databaseUrl;
      resetEnvForTests();
      await resetDbForTests();
    }
  }, 30_000);
});
