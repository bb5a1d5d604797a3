import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { migrate } from "../db/migrate";
import { type ChildEnv, killGroup, runStep, startPrefixed, stopGroup, waitForHttp } from "./processes";
import { ensureRedis, type Service, stopChild } from "./services";
import { type Supervised, supervise } from "./supervisor";

/** The repository root (this file lives in lib/ops). */
export const repoRoot = path.resolve(import.meta.dirname, "../..");
const bin = (name: string) => path.join(repoRoot, "node_modules/.bin", name);

export type AdminCredentials = { email: string; password: string };

/** A secret from `file`, created (random, mode 600) on first use, unless `given` is set. */
export function persistedSecret(file: string, given?: string, bytes = 24): string {
  if (given) return given;
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(bytes).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

export type AppEnvInput = {
  databaseUrl: string;
  redisUrl: string;
  port: number;
  publicUrl: string;
  nextauthSecret: string;
  admin: AdminCredentials;
  dataDir: string;
};

/** The variables lib/env.ts parses, for the web app, the worker and the seed. */
export function appEnv(input: AppEnvInput): Record<string, string> {
  return {
    DATABASE_URL: input.databaseUrl,
    REDIS_URL: input.redisUrl,
    PORT: String(input.port),
    NEXTAUTH_URL: input.publicUrl,
    ARENA_PUBLIC_URL: input.publicUrl,
    NEXTAUTH_SECRET: input.nextauthSecret,
    ADMIN_EMAIL: input.admin.email,
    ADMIN_PASSWORD: input.admin.password,
    ARENA_DATA_DIR: input.dataDir,
    POD_BACKEND: "local",
    NEXT_TELEMETRY_DISABLED: "1",
  };
}

/** Writes `KEY='value'` lines that `set -a; . file` reads back. */
export function writeEnvFile(file: string, env: Record<string, string>): void {
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  const lines = Object.entries(env).map(([key, value]) => `${key}=${quote(value)}`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `# written by lib/ops/arena-stack.ts; regenerated on every start\n${lines.join("\n")}\n`, {
    mode: 0o600,
  });
}

export function childEnv(extra: Record<string, string>): ChildEnv {
  return { ...process.env, ...extra };
}

export async function generateClient(env: ChildEnv): Promise<void> {
  await runStep("bash", [path.join(repoRoot, "lib/ops/prisma.sh"), "generate"], { env, cwd: repoRoot });
}

export async function migrateAndSeed(env: ChildEnv, databaseUrl: string, log: (line: string) => void): Promise<void> {
  const result = await migrate({ databaseUrl, log });
  log(`migrations: ${result.applied.length} applied, ${result.alreadyApplied.length} already applied`);
  await runStep(bin("tsx"), [path.join(repoRoot, "lib/db/seed-cli.ts")], { env, cwd: repoRoot });
}

export async function buildWeb(env: ChildEnv): Promise<void> {
  await runStep(bin("next"), ["build"], { env, cwd: repoRoot });
}

export function hasWebBuild(): boolean {
  return existsSync(path.join(repoRoot, ".next/BUILD_ID"));
}

export type RunningApp = { web: ChildProcess; worker: ChildProcess; stop: () => Promise<void> };

/** Starts `next start` and the worker; resolves once the web app answers on `baseUrl`. */
export async function startApp(options: {
  env: ChildEnv;
  port: number;
  host?: string;
  baseUrl: string;
  write?: (line: string) => void;
}): Promise<RunningApp> {
  const hostArgs = options.host ? ["-H", options.host] : [];
  const web = startPrefixed("web", bin("next"), ["start", "-p", String(options.port), ...hostArgs], {
    env: options.env,
    cwd: repoRoot,
    write: options.write,
  });
  const worker = startPrefixed("worker", bin("tsx"), [path.join(repoRoot, "workers/main.ts")], {
    env: options.env,
    cwd: repoRoot,
    write: options.write,
  });
  const stop = async () => {
    await Promise.all([stopGroup(web), stopGroup(worker)]);
  };
  try {
    await waitForHttp(options.baseUrl, web, 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { web, worker, stop };
}

export type SupervisedApp = { web: Supervised; worker: Supervised; stop: () => Promise<void> };

/**
 * `next start` and the worker, each restarted when it dies (lib/ops/supervisor.ts), the other left running: a
 * killed worker's pods run on and the next worker re-attaches to them, the web app serving all along. Resolves once
 * the web app answers on `baseUrl`.
 */
export async function superviseApp(options: {
  env: ChildEnv;
  port: number;
  host?: string;
  baseUrl: string;
  write?: (line: string) => void;
  log: (line: string) => void;
  /** Overrides the web process (the drills serve the app's API without a build). */
  webCommand?: { command: string; args: string[] };
}): Promise<SupervisedApp> {
  const hostArgs = options.host ? ["-H", options.host] : [];
  const web = options.webCommand ?? { command: bin("next"), args: ["start", "-p", String(options.port), ...hostArgs] };
  const spawnOptions = { env: options.env, cwd: repoRoot, write: options.write };
  // a process group of its own each: what a dead one left of its group is killed before it is started again
  const reap = (child: ChildProcess) => killGroup(child, "SIGKILL");
  const webProcess = await supervise({
    name: "the web process",
    start: async () => startPrefixed("web", web.command, web.args, spawnOptions),
    stop: (child) => stopGroup(child),
    reap,
    log: options.log,
  });
  // node itself, not tsx's launcher: the worker is the process its supervisor watches
  const workerArgs = ["--import", "tsx", path.join(repoRoot, "workers/main.ts")];
  const workerProcess = await supervise({
    name: "the worker process",
    start: async () => startPrefixed("worker", process.execPath, workerArgs, spawnOptions),
    stop: (child) => stopGroup(child),
    reap,
    log: options.log,
  });
  const stop = async () => {
    webProcess.halt();
    workerProcess.halt();
    await Promise.all([webProcess.stop(), workerProcess.stop()]);
  };
  try {
    await waitForHttp(options.baseUrl, webProcess.current()!, 120_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { web: webProcess, worker: workerProcess, stop };
}

/**
 * Watches a private redis-server (`ensureRedis`'s) and starts it again when it dies, on the same port (every process
 * has its URL) from its append-only file: jobs and schedules are all there again. Null for an external Redis.
 */
export async function superviseRedis(
  redis: Service,
  dir: string,
  log: (line: string) => void,
): Promise<Supervised | null> {
  if (!redis.process) return null;
  const port = Number(new URL(redis.url).port);
  return supervise({
    name: "the private redis-server",
    initial: redis.process,
    start: async () => (await ensureRedis({ dir, port, exactPort: true })).process!,
    stop: (child) => stopChild(child, 10_000),
    log,
  });
}
