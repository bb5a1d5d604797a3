import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { buildRepoSimEngineBundle, buildRepoTokenizerCache } from "../pods/agent/bundle/build-agent-bundle";
import { LocalPodBackend } from "../pods/local/local-pod-backend";
import {
  appEnv,
  buildWeb,
  childEnv,
  generateClient,
  hasWebBuild,
  migrateAndSeed,
  persistedSecret,
  repoRoot,
  superviseApp,
  superviseRedis,
  writeEnvFile,
} from "./arena-stack";
import { opsEnv } from "./env";
import { formatSeconds } from "./processes";
import { redactUrl } from "./redact-url";
import { ensurePostgres, ensureRedis, type Service } from "./services";
import type { Supervised } from "./supervisor";

const usage = `usage: npm run arena [-- --no-build]
  starts PostgreSQL (DATABASE_URL, else embedded in .arena/pg) and Redis (REDIS_URL, else a private redis-server),
  migrates, seeds, builds and serves the web app on PORT (default 3000) and the worker; a web process, worker or
  private redis-server that dies is restarted (with backoff), the rest left running; Ctrl-C stops everything.
  --no-build  reuse the existing .next build`;

const argsSchema = z.object({ "no-build": z.boolean().default(false), help: z.boolean().default(false) });

const services: Service[] = [];
const supervised: Supervised[] = [];
let stopApp: (() => Promise<void>) | undefined;
let podsDir: string | undefined;
let stopping = false;

async function shutdown(code: number): Promise<never> {
  if (!stopping) {
    stopping = true;
    // first of all: nothing that dies from here on is brought back
    for (const one of supervised) one.halt();
    console.log("\nstopping the arena…");
    await stopApp?.().catch((error: unknown) => console.error(error));
    // pods outlive their worker (the next one re-attaches); Ctrl-C stops them too
    if (podsDir) await stopLocalPods(podsDir).catch((error: unknown) => console.error(error));
    for (const one of supervised.reverse()) await one.stop().catch((error: unknown) => console.error(error));
    for (const service of services.reverse()) await service.stop().catch((error: unknown) => console.error(error));
  }
  process.exit(code);
}

/** Stops the local pods still running (their evaluations start again, as a new attempt, at the next start). */
async function stopLocalPods(stateDir: string): Promise<void> {
  const backend = new LocalPodBackend({ stateDir, agentEnv: {}, stopGraceMs: 10_000 });
  const pods = await backend.list();
  if (pods.length === 0) return;
  console.log(`stopping ${pods.length} pod${pods.length === 1 ? "" : "s"} still running`);
  await Promise.all(pods.map((pod) => backend.stop(pod.podId)));
}

const supervisorLog = (line: string) => console.log(`[arena] ${line}`);

async function step<T>(title: string, run: () => Promise<T>): Promise<T> {
  console.log(`\n\x1b[1m== ${title} ==\x1b[0m`);
  const started = Date.now();
  const result = await run();
  console.log(`-- ${title}: done in ${formatSeconds(Date.now() - started)}`);
  return result;
}

async function main(): Promise<void> {
  const { values } = parseOrExplain(() =>
    parseArgs({ options: { "no-build": { type: "boolean" }, help: { type: "boolean" } } }),
  );
  const args = argsSchema.parse(values);
  if (args.help) {
    console.log(usage);
    return;
  }
  const env = opsEnv();
  const stateDir = path.resolve(repoRoot, env.ARENA_STATE_DIR);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void shutdown(0));

  const postgres = await step("PostgreSQL", () =>
    ensurePostgres({ url: env.DATABASE_URL, dataDir: path.join(stateDir, "pg"), port: 5433 }),
  );
  services.push(postgres);
  console.log(`${postgres.owned ? "embedded" : "external"} PostgreSQL at ${redactUrl(postgres.url)}`);
  const redisDir = path.join(stateDir, "redis");
  const redis = await step("Redis", () => ensureRedis({ url: env.REDIS_URL, dir: redisDir, port: 6380 }));
  console.log(`${redis.owned ? "private" : "external"} Redis at ${redactUrl(redis.url)}`);
  const redisProcess = await superviseRedis(redis, redisDir, supervisorLog);
  if (redisProcess) supervised.push(redisProcess);
  else services.push(redis);

  const publicUrl = env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`;
  const admin = {
    email: env.ADMIN_EMAIL,
    password: persistedSecret(path.join(stateDir, "admin-password"), env.ADMIN_PASSWORD, 12),
  };
  const vars = appEnv({
    databaseUrl: postgres.url,
    redisUrl: redis.url,
    port: env.PORT,
    publicUrl,
    nextauthSecret: persistedSecret(path.join(stateDir, "nextauth-secret"), env.NEXTAUTH_SECRET),
    admin,
    dataDir: path.join(stateDir, "data"),
  });
  writeEnvFile(path.join(stateDir, "env"), vars);
  const children = childEnv(vars);

  await step("prisma generate", () => generateClient(children));
  // after generate, which writes under lib/: the simulated engines of local pods start from it (0.8 s of CPU less each)
  await step("the simulated engine's bundle", () => buildRepoSimEngineBundle());
  // every engine start, agent and token counter of a local pod reads Qwen3's tokenizer tables from it (0.5 s of CPU less each)
  await step("the tokenizer cache", () => buildRepoTokenizerCache());
  await step("migrate and seed", () => migrateAndSeed(children, postgres.url, (line) => console.log(line)));
  if (!args["no-build"]) await step("next build", () => buildWeb(children));
  else if (hasWebBuild()) console.log("\nreusing the existing .next build (--no-build)");
  else throw new Error("--no-build was given but there is no .next build to reuse");
  podsDir = path.join(stateDir, "data", "local-pods");
  const app = await step("start web and worker", () =>
    superviseApp({ env: children, port: env.PORT, baseUrl: publicUrl, log: supervisorLog }),
  );
  stopApp = app.stop;
  console.log(`
\x1b[1mSpeculatorArena is running at ${publicUrl}\x1b[0m
  admin sign-in: ${publicUrl}/admin  email ${admin.email}  password ${admin.password}
  environment:   ${path.relative(repoRoot, path.join(stateDir, "env"))}
  a web process, worker or private redis-server that dies is restarted; the others keep running.
  Ctrl-C stops the web app, the worker, its pods${postgres.owned || redis.owned ? " and the private services" : ""}.
`);
}

main().catch(async (error: unknown) => {
  console.error(`\narena: ${error instanceof Error ? error.message : String(error)}`);
  await shutdown(1);
});

/** parseArgs, with the usage appended to its error. */
function parseOrExplain<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`);
  }
}
