import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testServerUrl } from "../ops/test-database";
import { defaultMigrationsDir, defaultSchemaFile, diffSql, hasStatements } from "./schema-diff";

let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), "arena-schema-diff-"));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe("prisma/migrations against prisma/schema.prisma", () => {
  it("the migrations folder produces exactly the schema (regenerate with npm run db:diff)", async () => {
    const sql = await diffSql({
      from: { kind: "migrations", dir: defaultMigrationsDir },
      to: { kind: "schema", file: defaultSchemaFile },
      serverUrl: testServerUrl(),
    });
    expect(hasStatements(sql), `the schema has drifted from prisma/migrations; missing SQL:\n${sql}`).toBe(false);
  });

  it("notices a model the migrations lack", async () => {
    const schema = await readFile(defaultSchemaFile, "utf8");
    const drifted = path.join(scratch, "schema.prisma");
    await writeFile(drifted, `${schema}\nmodel DriftProbe {\n  id    Int    @id\n  label String\n}\n`);
    const sql = await diffSql({
      from: { kind: "migrations", dir: defaultMigrationsDir },
      to: { kind: "schema", file: drifted },
      serverUrl: testServerUrl(),
    });
    expect(hasStatements(sql)).toBe(true);
    expect(sql).toContain('CREATE TABLE "DriftProbe"');
    expect(sql).not.toMatch(/CREATE TABLE "(?!DriftProbe)/);
  });

  it("treats comment-only scripts as empty", () => {
    expect(hasStatements("-- This is an empty migration.\n\n")).toBe(false);
    expect(hasStatements("-- CreateTable\nCREATE TABLE x ();\n")).toBe(true);
  });
});
