import { afterAll, describe, expect, it } from "vitest";
import { env } from "../env";
import { createPrismaClient } from "./client";

describe("the database client", () => {
  const prisma = createPrismaClient(env().DATABASE_URL);
  afterAll(() => prisma.$disconnect());

  it("commits a burst of transactions serialised on one lock, whose last waits past Prisma's 2 s for a connection", async () => {
    // 28 transactions of 150 ms each behind one advisory lock, on pg's pool of 10: the last ones get a connection only
    // after 18 others have committed, about 2.7 s in, which Prisma's default maxWait (2 s) refuses
    const lockKey = `client-test-${Date.now()}`;
    const started = Date.now();
    const order = await Promise.all(
      Array.from({ length: 28 }, (_, i) =>
        prisma.$transaction(async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${lockKey}, 0))`;
          await tx.$executeRaw`SELECT pg_sleep(0.15)`;
          return i;
        }),
      ),
    );
    expect(order).toHaveLength(28);
    expect(Date.now() - started).toBeGreaterThan(28 * 150);
  }, 30_000);
});
