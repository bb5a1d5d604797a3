import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type PrismaClient } from "../db/client";
import { ensureRedis, freePort, type Service } from "../ops/services";
import { createMigratedTestDatabase, type TestDatabase } from "../ops/test-database";
import { createFailFastRedis, createRedis, FAIL_FAST_COMMAND_MS } from "../queue/connection";
import { until } from "../testing/until";
import { checkHealth } from "./check-health";
import { unavailableDatastore } from "./datastore-unavailable";

// Real failures, as the drivers raise them: PostgreSQL through Prisma's pg adapter, Redis through ioredis.
let database: TestDatabase;
let prisma: PrismaClient;
let closedPort: number;
let redisDir: string;
let redis: Service;

beforeAll(async () => {
  database = await createMigratedTestDatabase();
  prisma = createPrismaClient(database.url);
  closedPort = await freePort();
  redisDir = await mkdtemp(join(tmpdir(), "arena-unavailable-"));
  redis = await ensureRedis({ dir: join(redisDir, "redis"), port: 0, persistence: "none" });
});

afterAll(async () => {
  await prisma?.$disconnect();
  await database?.drop();
  await redis?.stop();
  await rm(redisDir, { recursive: true, force: true });
});

const failure = (work: Promise<unknown>) =>
  work.then(
    () => expect.unreachable("it should have failed"),
    (e) => e,
  );

describe("unavailableDatastore", () => {
  it("names PostgreSQL for a server that refuses connections, a model query or a raw one", async () => {
    const down = createPrismaClient(`postgresql://postgres@127.0.0.1:${closedPort}/postgres`);
    try {
      expect(unavailableDatastore(await failure(down.account.findFirst()))).toBe("postgres");
      expect(unavailableDatastore(await failure(down.$queryRaw`SELECT 1`))).toBe("postgres");
      expect(unavailableDatastore(await failure(down.$transaction(async (tx) => tx.account.count())))).toBe("postgres");
    } finally {
      await down.$disconnect();
    }
  });

  it("names PostgreSQL for a connection the server cut (a restart), and nothing for a query it refused", async () => {
    const [row] = await prisma.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
    const pid = row!.pid;
    const admin = createPrismaClient(database.url);
    await admin.$queryRaw`SELECT pg_terminate_backend(${pid}::int)`;
    await admin.$disconnect();
    const cut = await prisma.$queryRaw`SELECT 1`.catch((e: unknown) => e);
    // the pool may have opened a fresh connection for it; when it did not, the error says the connection was cut
    if (cut instanceof Error) expect(unavailableDatastore(cut)).toBe("postgres");
    expect(unavailableDatastore(await failure(prisma.$queryRaw`SELECT * FROM no_such_table`))).toBeNull();
    const name = `unique-${Date.now()}`;
    await prisma.account.create({ data: { name } });
    expect(unavailableDatastore(await failure(prisma.account.create({ data: { name } })))).toBeNull();
    expect(unavailableDatastore(new Error("Can't reach database server"))).toBeNull();
    expect(unavailableDatastore(undefined)).toBeNull();
  });

  it("names PostgreSQL for a connection cut between two queries of a transaction, which node-postgres reports bare", async () => {
    // a restart while a transaction is open: the server's goodbye lands between two of its queries, and the client
    // itself refuses the next one, unwrapped (no Prisma error, no code). Tried again, it gets a fresh connection.
    const admin = createPrismaClient(database.url);
    const gone = async (pid: number) => {
      const [row] = await admin.$queryRaw<{ n: number }[]>`
        SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ${pid}::int`;
      return row!.n === 0 ? true : undefined;
    };
    try {
      const cut = await failure(
        prisma.$transaction(async (tx) => {
          const [row] = await tx.$queryRaw<{ pid: number }[]>`SELECT pg_backend_pid() AS pid`;
          await admin.$queryRaw`SELECT pg_terminate_backend(${row!.pid}::int)`;
          await until(() => gone(row!.pid), 10_000, 20);
          await new Promise((r) => setTimeout(r, 100));
          return tx.account.count();
        }),
      );
      expect(String(cut)).toContain("Client has encountered a connection error and is not queryable");
      expect(unavailableDatastore(cut)).toBe("postgres");
      expect(await prisma.account.count()).toBeGreaterThanOrEqual(0);
    } finally {
      await admin.$disconnect();
    }
  });

  it("names Redis for a fail-fast command while Redis is down, answered within its limit", async () => {
    const client = createFailFastRedis(`redis://127.0.0.1:${closedPort}`);
    client.on("error", () => undefined);
    try {
      const started = Date.now();
      const error = await failure(client.ping());
      expect(Date.now() - started).toBeLessThan(FAIL_FAST_COMMAND_MS + 1_000);
      expect(unavailableDatastore(error)).toBe("redis");
    } finally {
      client.disconnect();
    }
  });
});

describe("the connections' two behaviours while Redis is away", () => {
  it("fails the web's calls fast, while a BullMQ worker's connection waits and goes on once Redis is back", async () => {
    const port = Number(new URL(redis.url).port);
    const waiting = createRedis(redis.url);
    const failing = createFailFastRedis(redis.url);
    for (const c of [waiting, failing]) c.on("error", () => undefined);
    try {
      expect(await waiting.ping()).toBe("PONG");
      expect(await failing.ping()).toBe("PONG");
      process.kill(redis.pid!, "SIGKILL");
      await new Promise((r) => setTimeout(r, 300));
      let settled = false;
      const pending = waiting.set("arena:test:waited", "1").finally(() => {
        settled = true;
      });
      const started = Date.now();
      expect(unavailableDatastore(await failure(failing.get("arena:test:waited")))).toBe("redis");
      expect(Date.now() - started).toBeLessThan(FAIL_FAST_COMMAND_MS + 1_000);
      expect(settled).toBe(false);
      redis = await ensureRedis({ dir: join(redisDir, "redis"), port, persistence: "none" });
      expect(await pending).toBe("OK");
      expect(await failing.get("arena:test:waited")).toBe("1");
    } finally {
      waiting.disconnect();
      failing.disconnect();
    }
  }, 30_000);
});

describe("checkHealth", () => {
  it("is ok while both answer, and names each one that does not within its time", async () => {
    const ok = () => Promise.resolve("ok");
    expect(await checkHealth({ postgres: () => prisma.$queryRaw`SELECT 1`, redis: ok })).toEqual({ ok: true });
    const down = createPrismaClient(`postgresql://postgres@127.0.0.1:${closedPort}/postgres`);
    const hung = () => new Promise(() => undefined);
    const started = Date.now();
    expect(await checkHealth({ postgres: () => down.$queryRaw`SELECT 1`, redis: hung })).toEqual({
      ok: false,
      unreachable: ["postgres", "redis"],
    });
    expect(Date.now() - started).toBeLessThan(2_500);
    await down.$disconnect();
  });
});
