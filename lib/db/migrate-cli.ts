import { opsEnv } from "../ops/env";
import { redactUrl } from "../ops/redact-url";
import { defaultMigrationsDir, migrate } from "./migrate";

async function main(): Promise<void> {
  const databaseUrl = opsEnv().DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is not set: it names the database to migrate");
  const result = await migrate({ databaseUrl, migrationsDir: defaultMigrationsDir, log: (line) => console.log(line) });
  console.log(
    `migrations: ${result.applied.length} applied, ${result.alreadyApplied.length} already applied (${redactUrl(databaseUrl)})`,
  );
}

main().catch((error: unknown) => {
  console.error(`migrate: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
