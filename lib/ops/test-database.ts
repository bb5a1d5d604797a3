import { randomBytes } from "node:crypto";
import pg from "pg";
import { migrate } from "../db/migrate";
import { opsEnv } from "./env";
import { redactUrl } from "./redact-url";

export type TestDatabase = { name: string; url: string; drop: () => Promise<void> };

/** The server tests create their databases on: DATABASE_URL (npm test sets it to a running server). */
export function testServerUrl(): string {
  const url = opsEnv().DATABASE_URL;
  if (!url) {
    throw new Error(
      "DATABASE_URL is not set: database tests need a PostgreSQL server (npm test provides one; or export DATABASE_URL=postgresql://...)",
    );
  }
  return url;
}

/** Creates an empty database `arena_test_<random>` on the server of `serverUrl`; `drop()` removes it. */
export async function createTestDatabase(serverUrl: string = testServerUrl()): Promise<TestDatabase> {
  const name = `arena_test_${randomBytes(6).toString("hex")}`;
  await adminQuery(serverUrl, `CREATE DATABASE "${name}"`);
  const url = withDatabase(serverUrl, name);
  return {
    name,
    url,
    drop: () => adminQuery(serverUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}

/** A throwaway database with the repository's migrations applied by the offline runner. */
export async function createMigratedTestDatabase(serverUrl: string = testServerUrl()): Promise<TestDatabase> {
  const database = await createTestDatabase(serverUrl);
  try {
    await migrate({ databaseUrl: database.url });
  } catch (error) {
    await database.drop();
    throw error;
  }
  return database;
}

export function withDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function adminQuery(serverUrl: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  try {
    await client.connect();
    await client.query(sql);
  } catch (error) {
    throw new Error(`${sql} on ${redactUrl(serverUrl)} failed: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}
