import { chmod, mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { createPrismaClient } from "../../db/client";
import { migrate } from "../../db/migrate";
import { seedDatabase } from "../../db/seed";
import { LocalPodBackend } from "../../pods/local/local-pod-backend";
import { appEnv, childEnv, hasWebBuild, repoRoot, type SupervisedApp, superviseApp } from "../arena-stack";
import { ensurePostgres, ensureRedis, freePort, type Service, stopChild } from "../services";
import { type Supervised, supervise } from "../supervisor";

/** A whole arena in a folder of its own, as `npm run arena` runs one, for the drills to break. */
export interface ThrowawayArena {
  url: string;
  databaseUrl: string;
  redisUrl: string;
  queuePrefix: string;
  dataDir: string;
  app: SupervisedApp;
  redis: Supervised;
  /** The next restart of the private redis-server starts from an empty folder: Redis lost its data. */
  wipeRedisOnRestart(): void;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  /** The supervisor's lines ("… exited …; restarting it in 1.0 s"). */
  supervisorLog: string[];
  /** The last lines of the web process's and the worker's output. */
  output: string[];
  stop(): Promise<void>;
}

export interface ThrowawayOptions {
  dir: string;
  /** Serve the app with `next start` (needs a `next build`); else its route handlers (the whole API) without one. */
  next?: boolean;
  simSpeed: number;
  log: (line: string) => void;
}

const keep = (lines: string[], line: string, most = 400) => {
  lines.push(line);
  if (lines.length > most) lines.splice(0, lines.length - most);
};

/**
 * Starts PostgreSQL (embedded, throwaway), a private redis-server with its append-only file, migrates and seeds,
 * and runs the web process and the worker under the arena's own supervision (lib/ops/supervisor.ts): every process
 * that the drills kill is brought back as it would be in `npm run arena`. The worker's lease and stall timings are
 * shortened, so that what a dead worker held is taken over within seconds.
 */
export async function startThrowawayArena(options: ThrowawayOptions): Promise<ThrowawayArena> {
  const { dir, log } = options;
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755);
  const pgDir = path.join(dir, "pg");
  let postgres: Service = await ensurePostgres({ dataDir: pgDir, port: 0, durable: false, log: () => undefined });
  const pgPort = Number(new URL(postgres.url).port);
  log(`PostgreSQL on port ${pgPort}`);

  const redisDir = path.join(dir, "redis");
  const first = await ensureRedis({ dir: redisDir, port: 0 });
  const redisPort = Number(new URL(first.url).port);
  let wipe = false;
  const supervisorLog: string[] = [];
  const output: string[] = [];
  const note = (line: string) => {
    keep(supervisorLog, line);
    log(`[supervisor] ${line}`);
  };
  const redis = await supervise({
    name: "the private redis-server",
    initial: first.process!,
    start: async () => {
      if (wipe) {
        wipe = false;
        await rm(path.join(redisDir, "appendonlydir"), { recursive: true, force: true });
        log("the private redis-server starts without its data");
      }
      return (await ensureRedis({ dir: redisDir, port: redisPort, exactPort: true })).process!;
    },
    stop: (child) => stopChild(child, 10_000),
    log: note,
  });
  log(`Redis on port ${redisPort}`);

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const queuePrefix = `drills-${process.pid}`;
  const dataDir = path.join(dir, "data");
  const vars = {
    ...appEnv({
      databaseUrl: postgres.url,
      redisUrl: first.url,
      port,
      publicUrl: url,
      nextauthSecret: "drills-secret-not-for-production",
      admin: { email: "admin@arena.local", password: "drills-password" },
      dataDir,
    }),
    QUEUE_PREFIX: queuePrefix,
    ENGINE_RUNTIME: "sim",
    SIM_SPEED: String(options.simSpeed),
    EVALUATION_LEASE_SECONDS: "10",
    WORKER_STALLED_MS: "5000",
    RECONCILE_EVERY_MS: "5000",
  };
  await migrate({ databaseUrl: postgres.url });
  const prisma = createPrismaClient(postgres.url);
  await seedDatabase(prisma, { adminEmail: "admin@arena.local" });
  await prisma.$disconnect();

  const useNext = options.next === true;
  if (useNext && !hasWebBuild()) throw new Error("--next needs a `next build` (.next/BUILD_ID): run `npm run build`");
  const app = await superviseApp({
    env: childEnv(vars),
    port,
    host: "127.0.0.1",
    baseUrl: `${url}/api/health`,
    ...(useNext
      ? {}
      : {
          webCommand: {
            command: process.execPath,
            args: ["--import", "tsx", path.join(repoRoot, "lib/ops/drills/serve-api.ts"), String(port)],
          },
        }),
    write: (line) => keep(output, line),
    log: note,
  });
  log(`the web app (${useNext ? "next start" : "the API's route handlers"}) at ${url}, the worker running`);

  return {
    url,
    databaseUrl: postgres.url,
    redisUrl: first.url,
    queuePrefix,
    dataDir,
    app,
    redis,
    wipeRedisOnRestart: () => {
      wipe = true;
    },
    stopPostgres: () => postgres.stop(),
    startPostgres: async () => {
      postgres = await ensurePostgres({ dataDir: pgDir, port: pgPort, durable: false, log: () => undefined });
    },
    supervisorLog,
    output,
    async stop() {
      await app.stop();
      // the pods a killed worker left (they outlive it) go with the arena
      const pods = new LocalPodBackend({
        stateDir: path.join(dataDir, "local-pods"),
        agentEnv: {},
        stopGraceMs: 5_000,
      });
      for (const pod of await pods.list()) await pods.stop(pod.podId);
      redis.halt();
      await redis.stop();
      await postgres.stop();
    },
  };
}
