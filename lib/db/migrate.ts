import { createHash, randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import pg from "pg";

/** Prisma's migrations folder layout: `<dir>/<timestamp>_<name>/migration.sql` plus `migration_lock.toml`. */
export const defaultMigrationsDir = path.resolve(import.meta.dirname, "../../prisma/migrations");

/** The advisory lock key `prisma migrate` takes, so this runner and Prisma's never apply concurrently. */
const prismaAdvisoryLockKey = 72707369;

export type MigrationFile = { name: string; sql: string; checksum: string };

export type MigrateResult = { applied: string[]; alreadyApplied: string[] };

export type MigrateOptions = {
  databaseUrl: string;
  migrationsDir?: string;
  log?: (line: string) => void;
};

/** Prisma's checksum of a migration: the SHA-256 of the file's bytes, lowercase hex. */
export function migrationChecksum(sql: string | Buffer): string {
  return createHash("sha256").update(sql).digest("hex");
}

/**
 * Whether a recorded checksum belongs to this script, as Prisma's engine decides: the script as is, or with its line
 * endings switched between LF and CRLF (git may rewrite them), and, for rows written by old engines, hex bytes
 * without zero-padding.
 */
export function checksumMatches(sql: string, recorded: string): boolean {
  const variants = [sql, sql.replaceAll("\r\n", "\n"), sql.replaceAll("\n", "\r\n")];
  return variants.some((variant) => {
    const digest = createHash("sha256").update(variant).digest();
    const rendered =
      recorded.length === 64 ? digest.toString("hex") : [...digest].map((byte) => byte.toString(16)).join("");
    return rendered === recorded;
  });
}

/** Reads the migrations folder in name order (Prisma's order); fails on a folder without migration.sql. */
export async function readMigrations(dir: string = defaultMigrationsDir): Promise<MigrationFile[]> {
  if (!existsSync(dir)) throw new Error(`migrations folder ${dir} does not exist`);
  const lock = path.join(dir, "migration_lock.toml");
  if (existsSync(lock)) {
    const provider = /provider\s*=\s*"([^"]+)"/.exec(await readFile(lock, "utf8"))?.[1];
    if (provider !== "postgresql") {
      throw new Error(`${lock} names provider "${provider}", but this runner applies PostgreSQL migrations only`);
    }
  }
  const entries = await readdir(dir, { withFileTypes: true });
  const names = entries
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const migrations: MigrationFile[] = [];
  for (const name of names) {
    const file = path.join(dir, name, "migration.sql");
    if (!existsSync(file)) throw new Error(`migration ${name} has no migration.sql (${file})`);
    const bytes = await readFile(file);
    migrations.push({ name, sql: bytes.toString("utf8"), checksum: migrationChecksum(bytes) });
  }
  return migrations;
}

/** Prisma's own DDL for its bookkeeping table, so `prisma migrate deploy` later accepts what this runner recorded. */
const createMigrationsTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export type AppliedRow = {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
};

/**
 * Applies the folder's unapplied migrations in order, each with its `_prisma_migrations` row in one transaction.
 * Refuses (before applying anything) when an applied migration's file changed, is missing from the folder, or a
 * previous attempt was left unfinished. Running it again applies nothing.
 */
export async function migrate(options: MigrateOptions): Promise<MigrateResult> {
  const log = options.log ?? (() => {});
  const migrations = await readMigrations(options.migrationsDir ?? defaultMigrationsDir);
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [prismaAdvisoryLockKey]);
    try {
      await client.query(createMigrationsTable);
      const { rows } = await client.query<AppliedRow>(
        `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
      );
      const applied = checkHistory(migrations, rows);
      const result: MigrateResult = { applied: [], alreadyApplied: [] };
      for (const migration of migrations) {
        if (applied.has(migration.name)) {
          result.alreadyApplied.push(migration.name);
          continue;
        }
        log(`applying ${migration.name}`);
        await applyOne(client, migration);
        result.applied.push(migration.name);
      }
      return result;
    } finally {
      await client.query("SELECT pg_advisory_unlock($1)", [prismaAdvisoryLockKey]);
    }
  } finally {
    await client.end();
  }
}

/** Validates the recorded history against the folder; returns the names already applied. */
export function checkHistory(migrations: MigrationFile[], rows: AppliedRow[]): Set<string> {
  const byName = new Map(migrations.map((m) => [m.name, m]));
  const applied = new Set<string>();
  for (const row of rows) {
    if (row.rolled_back_at) continue;
    if (!row.finished_at) {
      throw new Error(
        `migration ${row.migration_name} started but did not finish; resolve it (prisma migrate resolve) before migrating`,
      );
    }
    const file = byName.get(row.migration_name);
    if (!file) {
      throw new Error(
        `migration ${row.migration_name} is applied to the database but missing from the migrations folder`,
      );
    }
    if (!checksumMatches(file.sql, row.checksum)) {
      throw new Error(
        `migration ${row.migration_name} was modified after it was applied (checksum ${row.checksum} in the database, ${file.checksum} on disk)`,
      );
    }
    applied.add(row.migration_name);
  }
  return applied;
}

async function applyOne(client: pg.Client, migration: MigrationFile): Promise<void> {
  const id = randomUUID();
  await client.query("BEGIN");
  try {
    await client.query(
      `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count)
       VALUES ($1, $2, $3, now(), 0)`,
      [id, migration.checksum, migration.name],
    );
    await client.query(migration.sql);
    await client.query(
      `UPDATE "_prisma_migrations" SET finished_at = clock_timestamp(), applied_steps_count = 1 WHERE id = $1`,
      [id],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw new Error(`migration ${migration.name} failed and was rolled back: ${(error as Error).message}`);
  }
}
