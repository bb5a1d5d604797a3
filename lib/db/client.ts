import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "../env";
import { PrismaClient } from "./generated/client";

export type { Prisma } from "./generated/client";
export { PrismaClient };

const globalForPrisma = globalThis as unknown as { arenaPrisma?: PrismaClient };

/**
 * How long an interactive transaction may wait for a pool connection, and run. Prisma's defaults (2 s, 5 s) turn a
 * burst into internal errors: 25 submissions at once on one account queue behind its advisory lock while holding the
 * pool's 10 connections, and on a loaded two-core host the last ones waited past 2 s for a connection.
 */
const TRANSACTION_OPTIONS = { maxWait: 15_000, timeout: 30_000 } as const;

export function createPrismaClient(databaseUrl: string): PrismaClient {
  return new PrismaClient({
    adapter: new PrismaPg({ connectionString: databaseUrl }),
    transactionOptions: TRANSACTION_OPTIONS,
  });
}

/** The process's one client (kept on globalThis so Next's dev reloads do not open new pools). */
export function db(): PrismaClient {
  globalForPrisma.arenaPrisma ??= createPrismaClient(env().DATABASE_URL);
  return globalForPrisma.arenaPrisma;
}

/** For tests that point the arena at a throwaway database. */
export async function resetDbForTests(): Promise<void> {
  const client = globalForPrisma.arenaPrisma;
  globalForPrisma.arenaPrisma = undefined;
  if (client) await client.$disconnect();
}
