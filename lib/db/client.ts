import { PrismaPg } from "@prisma/adapter-pg";
import { env } from "../env";
import { PrismaClient } from "./generated/client";

export type { Prisma } from "./generated/client";
export { PrismaClient };

const globalForPrisma = globalThis as unknown as { arenaPrisma?: PrismaClient };

export function createPrismaClient(databaseUrl: string): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl }) });
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
