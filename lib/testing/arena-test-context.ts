import { randomBytes } from "node:crypto";
import { db, resetDbForTests } from "../db/client";
import { seedDatabase } from "../db/seed";
import { env, resetEnvForTests } from "../env";
import { createMigratedTestDatabase } from "../ops/test-database";
import { resetRedisForTests } from "../queue/connection";
import { resetEvaluationsQueueForTests } from "../queue/evaluations-queue";

export interface ArenaTestContext {
  databaseUrl: string;
  queuePrefix: string;
  teardown(): Promise<void>;
}

/**
 * A whole arena's state for one test file: a fresh migrated and seeded database on the test server
 * and a private queue prefix on the test Redis, so test files never see each other's rows or jobs.
 */
export async function setupArenaTestContext(extraEnv: Record<string, string> = {}): Promise<ArenaTestContext> {
  const database = await createMigratedTestDatabase();
  const queuePrefix = `arena-test-${randomBytes(4).toString("hex")}`;
  Object.assign(process.env, { DATABASE_URL: database.url, QUEUE_PREFIX: queuePrefix, ...extraEnv });
  resetEnvForTests();
  await resetDbForTests();
  await resetRedisForTests();
  await resetEvaluationsQueueForTests();
  await seedDatabase(db(), { adminEmail: env().ADMIN_EMAIL });
  return {
    databaseUrl: database.url,
    queuePrefix,
    async teardown() {
      await resetEvaluationsQueueForTests();
      await resetRedisForTests();
      await resetDbForTests();
      await database.drop();
    },
  };
}
