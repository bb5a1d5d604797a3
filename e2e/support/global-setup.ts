import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  appEnv,
  buildWeb,
  childEnv,
  generateClient,
  hasWebBuild,
  migrateAndSeed,
  repoRoot,
  startApp,
} from "../../lib/ops/arena-stack";
import { opsEnv } from "../../lib/ops/env";
import { ensurePostgres, ensureRedis, freePort, type Service } from "../../lib/ops/services";
import { createTestDatabase } from "../../lib/ops/test-database";
import { type ArenaInfo, arenaInfoFile } from "./arena-info";

/** Evaluations the e2e arena runs at once (the queue spec counts on it). */
const E2E_GPU_SLOTS = 2;

/** A Redis database index of its own, so the e2e worker never takes jobs queued by other tests on a shared server. */
const e2eRedisDb = 13;

function withRedisDb(url: string, db: number): string {
  const parsed = new URL(url);
  if (parsed.pathname && parsed.pathname !== "/") return url;
  parsed.pathname = `/${db}`;
  return parsed.toString();
}

/**
 * Brings up a throwaway arena for the browser tests: a fresh database (migrated by the offline runner and seeded),
 * the built web app on a free port and the worker. Returns the teardown that stops and removes all of it.
 */
export default async function globalSetup(): Promise<() => Promise<void>> {
  const env = opsEnv();
  const stateDir = path.resolve(repoRoot, env.ARENA_STATE_DIR);
  const log = (line: string) => console.log(`[e2e] ${line}`);
  const services: Service[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  const teardown = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch((error: unknown) => console.error(error));
    for (const service of services.reverse()) await service.stop().catch((error: unknown) => console.error(error));
  };
  try {
    const postgres = await ensurePostgres({ url: env.DATABASE_URL, dataDir: path.join(stateDir, "e2e-pg"), port: 0 });
    services.push(postgres);
    const redis = await ensureRedis({ url: env.REDIS_URL, dir: path.join(stateDir, "e2e-redis"), port: 0 });
    services.push(redis);
    const database = await createTestDatabase(postgres.url);
    cleanups.push(database.drop);
    log(`database ${database.name}`);

    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const admin = { email: "e2e-admin@arena.local", password: randomBytes(12).toString("base64url") };
    const dataDir = path.join(tmpdir(), `arena-e2e-${database.name}`);
    mkdirSync(dataDir, { recursive: true });
    const redisUrl = redis.owned ? redis.url : withRedisDb(redis.url, e2eRedisDb);
    const vars = {
      ...appEnv({
        databaseUrl: database.url,
        redisUrl,
        port,
        publicUrl: url,
        nextauthSecret: randomBytes(24).toString("base64url"),
        admin,
        dataDir,
      }),
      // Two evaluations at once, as an arena with two GPUs runs them, so the queue moves and the references of both
      // tasks are measured side by side; the simulated engines' cost model runs a little faster, which shortens what
      // is not a fixed-time pass (warm-up, the checks) without filling the ci profile's fixed-time passes with more
      // requests than two cores can count.
      GPU_SLOTS: String(E2E_GPU_SLOTS),
      SIM_SPEED: "2",
    };
    const children = childEnv(vars);
    if (!existsSync(path.join(repoRoot, "lib/db/generated/client.ts"))) await generateClient(children);
    await migrateAndSeed(children, database.url, log);
    if (!hasWebBuild()) {
      log("no .next build found: running next build");
      await buildWeb(children);
    }
    const app = await startApp({ env: children, port, host: "127.0.0.1", baseUrl: url, write: (line) => log(line) });
    cleanups.push(app.stop);
    log(`arena at ${url}`);

    const info: ArenaInfo = { url, admin, databaseUrl: database.url, redisUrl };
    mkdirSync(path.dirname(arenaInfoFile), { recursive: true });
    writeFileSync(arenaInfoFile, `${JSON.stringify(info, null, 2)}\n`, { mode: 0o600 });
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
