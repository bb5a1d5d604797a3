import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PrismaPg } from "@prisma/adapter-pg";
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlMigrationAwareDriverAdapterFactory,
} from "@prisma/driver-adapter-utils";
import pg from "pg";
import { createTestDatabase } from "../ops/test-database";
import { defaultMigrationsDir } from "./migrate";

/**
 * Offline migration SQL through Prisma's WebAssembly schema engine (`@prisma/schema-engine-wasm`), which speaks to
 * PostgreSQL through a driver adapter instead of the downloaded schema-engine binary.
 */

export const schemaEngineWasmPackage = "@prisma/schema-engine-wasm";
export const defaultSchemaFile = path.resolve(import.meta.dirname, "../../prisma/schema.prisma");

export type DiffSource =
  | { kind: "empty" }
  | { kind: "schema"; file: string }
  /** The engine replays the migrations in a throwaway shadow database on `serverUrl`; no migrations = empty. */
  | { kind: "migrations"; dir: string };

export type DiffOptions = {
  from: DiffSource;
  to: DiffSource;
  /** A PostgreSQL server the engine connects to, and where it creates and drops a shadow database for `migrations`. */
  serverUrl: string;
};

type JsResult = { tag: "ok"; value: string } | { tag: "error"; value: string };
type EngineTarget =
  | { tag: "empty" }
  | { tag: "schemaDatamodel"; files: { path: string; content: string }[] }
  | {
      tag: "migrations";
      baseDir: string;
      lockfile: { path: string; content: string | null };
      shadowDbInitScript: string;
      migrationDirectories: { path: string; migrationFile: { path: string; content: JsResult } }[];
    };
type Engine = {
  diff(params: {
    from: EngineTarget;
    to: EngineTarget;
    script: boolean;
    exitCode: boolean | null;
    filters: { externalTables: string[]; externalEnums: string[] };
  }): Promise<{ exitCode: number; stdout: string | null }>;
  free(): void;
};
type Glue = {
  __wbg_set_wasm(exports: WebAssembly.Exports): void;
  SchemaEngine: {
    new: (
      options: { datamodels: [string, string][] | undefined },
      log: (line: string) => void,
      adapter: object,
    ) => Promise<Engine>;
  };
};

let gluePromise: Promise<Glue> | undefined;

/** Instantiates the engine's wasm once; the package's `schema_engine.js` entry needs a bundler, so load by hand. */
async function loadGlue(): Promise<Glue> {
  gluePromise ??= (async () => {
    const require = createRequire(import.meta.url);
    let entry: string;
    try {
      entry = require.resolve(schemaEngineWasmPackage);
    } catch {
      throw new Error(
        `${schemaEngineWasmPackage} is not installed; it is the offline migration generator (npm install --save-dev ${schemaEngineWasmPackage}@7.10.0-7.561d7b42579a2459cc8edf3788918b626c640023)`,
      );
    }
    const dir = path.dirname(entry);
    // the engine's panic hook hands its message to this registry, which Prisma's own loaders define: without it the
    // hook itself throws (reading `set_message` of undefined) and the panic's message is lost
    const host = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: { set_message(message: string): void } };
    host.PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message) => console.error(`Prisma's schema engine panicked: ${message}`),
    };
    const glue = (await import(pathToFileURL(path.join(dir, "schema_engine_bg.js")).href)) as Glue;
    const bytes = await readFile(path.join(dir, "schema_engine_bg.wasm"));
    const { instance } = await WebAssembly.instantiate(bytes, {
      "./schema_engine_bg.js": glue as unknown as WebAssembly.ModuleImports,
    });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return glue;
  })();
  return gluePromise;
}

async function toTarget(source: DiffSource): Promise<EngineTarget> {
  switch (source.kind) {
    case "empty":
      return { tag: "empty" };
    case "schema":
      return { tag: "schemaDatamodel", files: [{ path: source.file, content: await readFile(source.file, "utf8") }] };
    case "migrations": {
      const lockPath = path.join(source.dir, "migration_lock.toml");
      const entries = existsSync(source.dir) ? await readdir(source.dir, { withFileTypes: true }) : [];
      const names = entries
        .filter((e) => e.isDirectory())
        .map((e) => e.name)
        .sort();
      if (names.length === 0) return { tag: "empty" };
      const migrationDirectories = await Promise.all(
        names.map(async (name) => {
          const file = path.join(source.dir, name, "migration.sql");
          const content: JsResult = existsSync(file)
            ? { tag: "ok", value: await readFile(file, "utf8") }
            : { tag: "error", value: `${file} does not exist` };
          return { path: name, migrationFile: { path: "migration.sql", content } };
        }),
      );
      return {
        tag: "migrations",
        baseDir: source.dir,
        lockfile: { path: lockPath, content: existsSync(lockPath) ? await readFile(lockPath, "utf8") : null },
        shadowDbInitScript: "",
        migrationDirectories,
      };
    }
  }
}

function datamodels(sources: DiffSource[]): Promise<[string, string][]> {
  return Promise.all(
    sources
      .filter((s): s is { kind: "schema"; file: string } => s.kind === "schema")
      .map(async (s) => [s.file, await readFile(s.file, "utf8")] as [string, string]),
  );
}

/** The SQL script that takes `from` to `to` (empty string when they agree). */
export async function diffSql(options: DiffOptions): Promise<string> {
  const glue = await loadGlue();
  // The engine works in a scratch database of its own, never in the one the URL names, and in shadow databases this
  // module makes (PrismaPg's own shadow database is dropped while its pool still holds a connection).
  const scratch = await createTestDatabase(options.serverUrl);
  const adapter = bindMigrationAwareSqlAdapterFactory(scratchAdapterFactory(options.serverUrl, scratch.url));
  const models = await datamodels([options.from, options.to]);
  let engine: Engine;
  try {
    engine = await glue.SchemaEngine.new({ datamodels: models.length > 0 ? models : undefined }, () => {}, adapter);
  } catch (error) {
    await scratch.drop();
    throw error;
  }
  try {
    const result = await engine.diff({
      from: await toTarget(options.from),
      to: await toTarget(options.to),
      script: true,
      exitCode: null,
      filters: { externalTables: [], externalEnums: [] },
    });
    return result.stdout ?? "";
  } finally {
    engine.free();
    await scratch.drop();
  }
}

function scratchAdapterFactory(serverUrl: string, scratchUrl: string): SqlMigrationAwareDriverAdapterFactory {
  const mainPool = charAsTextPool(scratchUrl);
  const main = new PrismaPg(mainPool);
  return {
    provider: main.provider,
    adapterName: main.adapterName,
    connect: async () => {
      const adapter = await main.connect();
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await mainPool.end();
      };
      return adapter;
    },
    connectToShadowDb: async () => {
      const shadow = await createTestDatabase(serverUrl);
      const pool = charAsTextPool(shadow.url);
      const adapter = await new PrismaPg(pool).connect();
      const dispose = adapter.dispose.bind(adapter);
      adapter.dispose = async () => {
        await dispose();
        await pool.end();
        await shadow.drop();
      };
      return adapter;
    },
  };
}

type Queryable = { query: (...args: unknown[]) => unknown };

/**
 * PrismaPg cannot map PostgreSQL's internal `"char"` type (OID 18), which the engine's catalogue queries return; its
 * values arrive as one-letter strings, so declare such columns TEXT (OID 25).
 */
function charAsTextPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  const patch = (target: Queryable) => {
    const original = target.query.bind(target);
    target.query = (...args: unknown[]) => {
      const result = original(...args);
      if (typeof args.at(-1) === "function" || !(result instanceof Promise)) return result;
      return result.then((value: pg.QueryResult) => {
        for (const field of value.fields ?? []) if (field.dataTypeID === 18) field.dataTypeID = 25;
        return value;
      });
    };
  };
  patch(pool as unknown as Queryable);
  pool.on("connect", (client) => patch(client as unknown as Queryable));
  // its scratch database is dropped WITH (FORCE) while idle clients may still be pooled: the server ends their
  // connections (57P01), which is the expected end of a scratch pool, not a fault to throw from an idle client
  pool.on("error", () => undefined);
  return pool;
}

/** True when a diff script contains a statement (Prisma emits comment-only scripts for empty diffs). */
export function hasStatements(sql: string): boolean {
  return sql
    .split("\n")
    .map((line) => line.trim())
    .some((line) => line !== "" && !line.startsWith("--"));
}

export { defaultMigrationsDir };
