import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../ops/test-database";
import { checksumMatches, defaultMigrationsDir, migrate, migrationChecksum, readMigrations } from "./migrate";

type Row = {
  id: string;
  checksum: string;
  finished_at: Date | null;
  migration_name: string;
  logs: string | null;
  rolled_back_at: Date | null;
  started_at: Date;
  applied_steps_count: number;
};

let database: TestDatabase;
let dir: string;

beforeEach(async () => {
  database = await createTestDatabase();
  dir = await mkdtemp(path.join(tmpdir(), "arena-migrations-"));
  await writeFile(path.join(dir, "migration_lock.toml"), 'provider = "postgresql"\n');
});

afterEach(async () => {
  await database.drop();
  await rm(dir, { recursive: true, force: true });
});

async function writeMigration(name: string, sql: string): Promise<void> {
  await mkdir(path.join(dir, name), { recursive: true });
  await writeFile(path.join(dir, name, "migration.sql"), sql);
}

async function query<T extends pg.QueryResultRow>(sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

const history = () => query<Row>(`SELECT * FROM "_prisma_migrations" ORDER BY migration_name`);

describe("migrate", () => {
  it("applies each migration once, in name order, recording rows the way Prisma does", async () => {
    const first = 'CREATE TABLE "A" ("id" INTEGER PRIMARY KEY);\n';
    const second = 'ALTER TABLE "A" ADD COLUMN "name" TEXT;\nINSERT INTO "A" VALUES (1, \'one\');\n';
    await writeMigration("20250101000000_second_sorted_first", first);
    await writeMigration("20250102000000_then_this", second);

    const result = await migrate({ databaseUrl: database.url, migrationsDir: dir });
    expect(result).toEqual({
      applied: ["20250101000000_second_sorted_first", "20250102000000_then_this"],
      alreadyApplied: [],
    });

    const rows = await history();
    expect(rows.map((r) => r.migration_name)).toEqual([
      "20250101000000_second_sorted_first",
      "20250102000000_then_this",
    ]);
    expect(rows[0]!.checksum).toBe(migrationChecksum(first));
    expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);
    for (const row of rows) {
      expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.finished_at!.getTime()).toBeGreaterThanOrEqual(row.started_at.getTime());
      expect(row.rolled_back_at).toBeNull();
      expect(row.logs).toBeNull();
      expect(row.applied_steps_count).toBe(1);
    }
    expect(await query(`SELECT * FROM "A"`)).toEqual([{ id: 1, name: "one" }]);

    const again = await migrate({ databaseUrl: database.url, migrationsDir: dir });
    expect(again).toEqual({
      applied: [],
      alreadyApplied: ["20250101000000_second_sorted_first", "20250102000000_then_this"],
    });
    expect(await history()).toHaveLength(2);
  });

  it("applies only the migrations added since the last run", async () => {
    await writeMigration("20250101000000_a", 'CREATE TABLE "A" ("id" INTEGER);');
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await writeMigration("20250103000000_b", 'CREATE TABLE "B" ("id" INTEGER);');
    const result = await migrate({ databaseUrl: database.url, migrationsDir: dir });
    expect(result).toEqual({ applied: ["20250103000000_b"], alreadyApplied: ["20250101000000_a"] });
  });

  it("rolls back a failing migration whole, records nothing for it, and keeps the ones before it", async () => {
    await writeMigration("20250101000000_ok", 'CREATE TABLE "A" ("id" INTEGER);');
    await writeMigration("20250102000000_broken", 'CREATE TABLE "B" ("id" INTEGER);\nSELECT * FROM "Missing";');
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toThrow(
      /20250102000000_broken failed and was rolled back: .*Missing/,
    );
    expect((await history()).map((r) => r.migration_name)).toEqual(["20250101000000_ok"]);
    expect(await query(`SELECT to_regclass('"B"')::text AS b`)).toEqual([{ b: null }]);
  });

  it("refuses to run when an applied migration's file changed", async () => {
    await writeMigration("20250101000000_a", 'CREATE TABLE "A" ("id" INTEGER);');
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await writeMigration("20250101000000_a", 'CREATE TABLE "A" ("id" BIGINT);');
    await writeMigration("20250102000000_b", 'CREATE TABLE "B" ("id" INTEGER);');
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toThrow(
      /20250101000000_a was modified after it was applied/,
    );
    expect(await query(`SELECT to_regclass('"B"')::text AS b`)).toEqual([{ b: null }]);
  });

  it("accepts a file whose line endings git switched, as Prisma does", async () => {
    await writeMigration("20250101000000_a", 'CREATE TABLE "A" ("id" INTEGER);\nCREATE TABLE "B" ("id" INTEGER);\n');
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await writeMigration(
      "20250101000000_a",
      'CREATE TABLE "A" ("id" INTEGER);\r\nCREATE TABLE "B" ("id" INTEGER);\r\n',
    );
    expect(await migrate({ databaseUrl: database.url, migrationsDir: dir })).toEqual({
      applied: [],
      alreadyApplied: ["20250101000000_a"],
    });
    expect(checksumMatches("x\n", migrationChecksum("x\r\n"))).toBe(true);
    expect(checksumMatches("x\n", migrationChecksum("y\n"))).toBe(false);
  });

  it("refuses when the database has a migration the folder lacks, or one left unfinished", async () => {
    await writeMigration("20250101000000_a", 'CREATE TABLE "A" ("id" INTEGER);');
    await migrate({ databaseUrl: database.url, migrationsDir: dir });
    await query(`UPDATE "_prisma_migrations" SET migration_name = '20240101000000_gone'`);
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toThrow(
      /20240101000000_gone is applied to the database but missing from the migrations folder/,
    );
    await query(`UPDATE "_prisma_migrations" SET migration_name = '20250101000000_a', finished_at = NULL`);
    await expect(migrate({ databaseUrl: database.url, migrationsDir: dir })).rejects.toThrow(
      /20250101000000_a started but did not finish/,
    );
  });

  it("lets concurrent runners apply each migration exactly once", async () => {
    await writeMigration("20250101000000_a", 'CREATE TABLE "A" ("id" INTEGER);');
    await writeMigration("20250102000000_b", 'CREATE TABLE "B" ("id" INTEGER);');
    const results = await Promise.all([1, 2, 3].map(() => migrate({ databaseUrl: database.url, migrationsDir: dir })));
    expect(results.flatMap((r) => r.applied).sort()).toEqual(["20250101000000_a", "20250102000000_b"]);
    expect(await history()).toHaveLength(2);
  });

  it("rejects a migration folder without migration.sql, and a lock file for another provider", async () => {
    await mkdir(path.join(dir, "20250101000000_empty"));
    await expect(readMigrations(dir)).rejects.toThrow(/20250101000000_empty has no migration.sql/);
    await rm(path.join(dir, "20250101000000_empty"), { recursive: true });
    await writeFile(path.join(dir, "migration_lock.toml"), 'provider = "mysql"\n');
    await expect(readMigrations(dir)).rejects.toThrow(/provider "mysql"/);
  });

  it("applies the repository's own migrations folder, with the lock file Prisma expects", async () => {
    const lock = await readFile(path.join(defaultMigrationsDir, "migration_lock.toml"), "utf8");
    expect(lock).toMatch(/^provider = "postgresql"$/m);
    const migrations = await readMigrations();
    expect(migrations.length).toBeGreaterThan(0);
    const result = await migrate({ databaseUrl: database.url });
    expect(result.applied).toEqual(migrations.map((m) => m.name));
    expect((await history()).map((r) => r.checksum)).toEqual(migrations.map((m) => m.checksum));
  });
});
