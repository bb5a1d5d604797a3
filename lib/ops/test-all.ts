import path from "node:path";
import { parseArgs } from "node:util";
import { z } from "zod";
import { buildRepoClientBundle } from "../kit/repo-client-bundle";
import {
  buildRepoAgentBundle,
  buildRepoSimEngineBundle,
  buildRepoTokenizerCache,
} from "../pods/agent/bundle/build-agent-bundle";
import { repoRoot } from "./arena-stack";
import { opsEnv } from "./env";
import { formatSeconds, runPrefixedStep, runStep } from "./processes";
import { redactUrl } from "./redact-url";
import { checkPostgres, checkRedis, ensurePostgres, ensureRedis, type Service } from "./services";

const stepIds = ["generate", "biome", "tsc", "vitest", "build", "e2e"] as const;
type StepId = (typeof stepIds)[number];

const usage = `usage: npm test [-- --only <steps>] [-- --skip <steps>]
  steps, in order: ${stepIds.join(", ")} (PostgreSQL and Redis always come first); default: all of them`;

const stepList = z
  .string()
  .transform((value) => value.split(",").map((s) => s.trim()))
  .pipe(z.array(z.enum(stepIds, { message: `steps are ${stepIds.join(", ")}` })));

const argsSchema = z.object({ only: stepList.optional(), skip: stepList.optional(), help: z.boolean().default(false) });

/**
 * Whole-evaluation test files run at once (vitest.config.ts: the evaluations project). Four made the suite shorter
 * here (629.3–696.0 s against 754.9 s at three) but load failures came with it: in the last fresh clone at four, one of
 * the calibration e2e's two A/A pods ended void.
 */
const EVALUATION_FILES_AT_ONCE = 3;

type Outcome = { title: string; ok: boolean; ms: number; note?: string };

const outcomes: Outcome[] = [];
const services: Service[] = [];
const bin = (name: string) => path.join(repoRoot, "node_modules/.bin", name);

async function section(title: string, run: () => Promise<void>): Promise<boolean> {
  console.log(`\n\x1b[1m== ${title} ==\x1b[0m`);
  const started = Date.now();
  try {
    await run();
    outcomes.push({ title, ok: true, ms: Date.now() - started });
    console.log(`-- ${title}: passed in ${formatSeconds(Date.now() - started)}`);
    return true;
  } catch (error) {
    const note = error instanceof Error ? error.message : String(error);
    outcomes.push({ title, ok: false, ms: Date.now() - started, note });
    console.log(`-- ${title}: FAILED in ${formatSeconds(Date.now() - started)}: ${note}`);
    return false;
  }
}

/** The URL when given; the "try" URL when it answers; else undefined (start a private one). */
async function pick(given: string | undefined, tryUrl: string | undefined, check: (url: string) => Promise<void>) {
  if (given || !tryUrl) return given;
  try {
    await check(tryUrl);
    return tryUrl;
  } catch (error) {
    console.log(`${(error as Error).message}; starting a private one`);
    return undefined;
  }
}

function selectedSteps(): Set<StepId> | undefined {
  const { values } = parseOrExplain(() =>
    parseArgs({
      options: { only: { type: "string" }, skip: { type: "string" }, help: { type: "boolean" } },
    }),
  );
  const parsed = argsSchema.safeParse(values);
  if (!parsed.success) throw new Error(`${parsed.error.issues.map((i) => i.message).join("; ")}\n${usage}`);
  if (parsed.data.help) {
    console.log(usage);
    return undefined;
  }
  const only = new Set<StepId>(parsed.data.only ?? stepIds);
  for (const skipped of parsed.data.skip ?? []) only.delete(skipped);
  return only;
}

async function main(): Promise<number> {
  const steps = selectedSteps();
  if (!steps) return 0;
  const env = opsEnv();
  const started = Date.now();
  const stateDir = path.resolve(repoRoot, env.ARENA_STATE_DIR);
  const childEnv: Record<string, string | undefined> = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };

  const servicesUp = await section("PostgreSQL and Redis", async () => {
    const pgUrl = await pick(env.DATABASE_URL, env.ARENA_TRY_DATABASE_URL, checkPostgres);
    // a throwaway cluster: nothing in it is worth forcing to disk
    const postgres = await ensurePostgres({
      url: pgUrl,
      dataDir: path.join(stateDir, "test-pg"),
      port: 0,
      durable: false,
    });
    services.push(postgres);
    const redisUrl = await pick(env.REDIS_URL, env.ARENA_TRY_REDIS_URL, (url) => checkRedis(url));
    // tests use throwaway queue prefixes: nothing of theirs is worth an append-only file that grows run after run
    const redis = await ensureRedis({
      url: redisUrl,
      dir: path.join(stateDir, "test-redis"),
      port: 0,
      persistence: "none",
    });
    services.push(redis);
    childEnv.DATABASE_URL = postgres.url;
    childEnv.REDIS_URL = redis.url;
    console.log(`PostgreSQL: ${postgres.owned ? "private" : "given"} ${redactUrl(postgres.url)}`);
    console.log(`Redis: ${redis.owned ? "private" : "given"} ${redactUrl(redis.url)}`);
  });
  const run = (id: StepId, title: string, command: string, args: string[], prefix?: string, favoured = false) =>
    steps.has(id)
      ? section(title, () =>
          prefix
            ? runPrefixedStep(prefix, command, args, { env: childEnv, cwd: repoRoot, favoured })
            : runStep(command, args, { env: childEnv, cwd: repoRoot }),
        )
      : Promise.resolve(true);
  if (servicesUp) {
    const generated = await run("generate", "prisma generate", "bash", ["lib/ops/prisma.sh", "generate"]);
    // after generate, which writes under lib/: every simulated engine, local pod agent and client the tests start runs
    // these bundles while they are newer than everything under lib/ (lib/sim-engine/bin/sim-engine,
    // lib/pods/agent/bundle/repo-agent.ts, lib/client/bin/client-entry.mjs), the sources through tsx otherwise
    await section("the simulated engine's, the pod agent's and the CLI's bundles, the tokenizer cache", async () => {
      console.log(await buildRepoSimEngineBundle());
      console.log(await buildRepoAgentBundle());
      console.log(await buildRepoClientBundle());
      console.log(await buildRepoTokenizerCache());
    });
    await run("biome", "biome check", bin("biome"), ["check", "."]);
    if (generated) {
      // Three lanes side by side on the two-core CI machine, each leaving a core idle for long stretches alone: the
      // unit tests (one file at a time) in a favoured session (processes.ts), then the red-team matrix's rows, five
      // pods at a time; the build then the whole evaluations, whose files run a few at a time (a pod waits on its
      // fixed-time passes and timeouts far more than it computes); tsc while the build runs, then Playwright once the
      // build and Chromium are there. Without the favour, the unit lane (one process beside lanes whose engines and
      // pods run in sessions of their own, each given a share like its whole one) took 840 s of a fresh clone's
      // 845 s here, and 434 s with it. The whole evaluations are favoured too since local pods run in a CPU group of
      // ten default shares (lib/pods/sandbox/cpu-share.ts): their test files and workers, left in this session's one
      // share beside the pods and the unit lane, answered an HTTP request in over 5 s (postgres-outage's abort).
      // Chromium (an apt install on a fresh machine, about a minute) comes in while the other steps run
      const chromium = steps.has("e2e")
        ? section("Chromium for the browser tests", () =>
            runPrefixedStep("chromium", "bash", ["lib/ops/ensure-chromium.sh"], { env: childEnv, cwd: repoRoot }),
          )
        : Promise.resolve(true);
      const build = run("build", "next build", bin("next"), ["build"], "build");
      const unit = (async () => {
        await run("vitest", "vitest run: unit", bin("vitest"), ["run", "--project", "unit"], "unit", true);
        await run("vitest", "vitest run: red-team matrix", bin("vitest"), ["run", "--project", "red-team"], "red-team");
      })();
      const evaluations = (async () => {
        // the image tree's and the clients' tests use this build rather than making their own
        await build;
        await run(
          "vitest",
          "vitest run: whole evaluations",
          bin("vitest"),
          ["run", "--project", "evaluations", `--maxWorkers=${EVALUATION_FILES_AT_ONCE}`],
          "evaluations",
          true,
        );
      })();
      const browser = (async () => {
        await run("tsc", "tsc --noEmit", bin("tsc"), ["--noEmit"], "tsc");
        if ((await build) && (await chromium))
          await run("e2e", "playwright test", bin("playwright"), ["test"], "playwright");
      })();
      await Promise.all([unit, evaluations, browser]);
    }
  }

  for (const service of services.reverse()) await service.stop().catch((error: unknown) => console.error(error));
  console.log("\n\x1b[1m== summary ==\x1b[0m");
  for (const outcome of outcomes) {
    console.log(`${outcome.ok ? "pass" : "FAIL"}  ${formatSeconds(outcome.ms).padStart(8)}  ${outcome.title}`);
    // the summary is the tail a CI log shows: what failed is repeated here
    if (!outcome.ok && outcome.note) console.log(outcome.note.replace(/^/gm, "        "));
  }
  const failed = outcomes.filter((o) => !o.ok);
  console.log(
    `${failed.length === 0 ? "all passed" : `${failed.length} failed: ${failed.map((f) => f.title).join(", ")}`} in ${formatSeconds(Date.now() - started)}`,
  );
  return failed.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`test-all: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);

/** parseArgs, with the usage appended to its error. */
function parseOrExplain<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${usage}`);
  }
}
