import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdtemp, readdir, readFile, rm, stat } from "node:fs/promises";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db, resetDbForTests } from "../../db/client";
import { packDirectory } from "../../engine-archive/pack-directory";
import { resetEnvForTests } from "../../env";
import { JUDGE_NODE_FLAGS } from "../../judge/run/node-flags";
import { AGENT_CONTAINER } from "../../pods/kubernetes/pod-spec";
import { envFromManifests, type LocalCluster, startLocalCluster } from "../../pods/kubernetes/testing/local-cluster";
import { resetRedisForTests } from "../../queue/connection";
import { resetEvaluationsQueueForTests } from "../../queue/evaluations-queue";
import { SIM_ENGINE_DIRS } from "../../sim-engine/spawn";
import { judgedHonestly } from "../../testing/judged-honestly";
import { until } from "../../testing/until";
import { issueToken } from "../../tokens/issue-token";
import { freePort } from "../services";
import { createTestDatabase, type TestDatabase } from "../test-database";
import { buildImageTree } from "./build-image-tree";
import { IMAGE_ENGINE_LAUNCHER, IMAGE_POD_AGENT } from "./pod-files";
import { IMAGE_BUNDLES } from "./server-bundles";

// The arena's image as a file tree (what the Dockerfile's build stage makes), copied nowhere near the repository: its
// own migration and seed commands make a fresh database, its web app serves and reports its datastores' health (a
// readiness probe's view: 503 while PostgreSQL or Redis is down), and its worker runs a whole evaluation through the
// kubernetes backend, whose pod runs the image's agent and engine launcher. Nothing of the checkout is used by them:
// no node_modules anywhere above the tree, the repository's files nowhere on their paths.
const REPO_ROOT = join(import.meta.dirname, "../../..");

let base: string;
let tree: string;
let app: string;
let database: TestDatabase;
let redisPort: number;
let redis: ChildProcess | null = null;
let relay: { server: Server; sockets: Set<Socket> } | null = null;
let relayPort: number;
let postgresTarget: URL;
let web: ChildProcess;
let webUrl: string;
let worker: ChildProcess | null = null;
let cluster: LocalCluster;
const output: string[] = [];

/**
 * How long the web app may take from `node server.js` to its first 200 from /api/health. Here it took 1.4 to 4.5 s
 * idle and 7 to 19 s beside ten busy loops on the two cores (load 20): 1.6 to 2.0 s of its own CPU, Next's server and
 * the health route's modules loading, the pages' preloaded beside them. A fresh clone's CI run, slower still, took
 * past 30 s. A limit, not a wait: the test goes on at the first 200.
 */
const WEB_START_MS = 120_000;
/** How long readiness may take to follow a datastore going or coming back (each check answers within 1.5 s). */
const HEALTH_CHANGE_MS = 60_000;
/** How long one GET /api/health may go unanswered before it counts as a failed probe (not a hung test). */
const HEALTH_REQUEST_MS = 20_000;

/** The last lines of the tree's programs (of the one named, if given), for a failure's message. */
function outputTail(name?: string, lines = 20): string {
  const tail = (name ? output.filter((l) => l.startsWith(`${name}: `)) : output).slice(-lines);
  return tail.length > 0 ? tail.join("\n") : `(no output${name ? ` from ${name}` : ""})`;
}

/**
 * Polls `probe` until it gives a value (as `until` does); `saw` records what it last found. Failing, it says what
 * it waited for, what it last saw and the last lines of `outputOf` (every program when not given).
 */
async function waitFor<T>(
  what: string,
  probe: (saw: (seen: string) => void) => Promise<T | undefined>,
  timeoutMs: number,
  outputOf?: string,
): Promise<T> {
  let last = "nothing yet";
  try {
    return await until(
      () =>
        probe((seen) => {
          last = seen;
        }),
      timeoutMs,
    );
  } catch (error) {
    throw new Error(
      `${what}: ${(error as Error).message}; last saw: ${last}\n${outputOf ?? "output"}'s last lines:\n${outputTail(outputOf)}`,
    );
  }
}

/** Why a fetch got no response: undici's "fetch failed" names its cause (ECONNREFUSED, a reset, a timeout). */
function fetchError(error: unknown): string {
  const e = error as Error & { cause?: { code?: string; message?: string } };
  const cause = e.cause ? `: ${e.cause.code ?? e.cause.message}` : "";
  return `${e.name}: ${e.message}${cause}`;
}

/** Whether a child has exited, and how. */
const exited = (child: ChildProcess): string | null =>
  child.exitCode !== null ? `exit code ${child.exitCode}` : child.signalCode ? `signal ${child.signalCode}` : null;

/** Keeps a child's output lines in `output`, each named by its program. */
function keepOutput(child: ChildProcess, name: string): void {
  for (const stream of [child.stdout!, child.stderr!])
    stream.on("data", (c: Buffer) =>
      output.push(
        ...c
          .toString()
          .split("\n")
          .filter(Boolean)
          .map((l) => `${name}: ${l}`),
      ),
    );
}

/** A program of the tree, with only the environment it is given (a container's), from the tree's /app. */
function startFromTree(name: string, entry: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, [entry], {
    cwd: app,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: "/tmp", NODE_ENV: "production", ...env } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  keepOutput(child, name);
  return child;
}

function runFromTree(entry: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = startFromTree("run", entry, env);
    let out = "";
    let err = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
    });
    child.stderr!.on("data", (c: Buffer) => {
      err += c.toString();
    });
    child.once("exit", (code, signal) =>
      code === 0 ? resolve(out) : reject(new Error(`${entry} exited ${code ?? signal}: ${out}\nstderr: ${err}`)),
    );
  });
}

async function startRedis(): Promise<void> {
  const child = spawn(
    "redis-server",
    ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--loglevel", "warning"],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  redis = child;
  keepOutput(child, "redis");
  await waitFor(
    `redis-server accepting connections on 127.0.0.1:${redisPort}`,
    (saw) => {
      const gone = exited(child);
      if (gone) throw new Error(`redis-server exited (${gone})`);
      return new Promise<true | undefined>((resolve) => {
        const socket = createConnection(redisPort, "127.0.0.1", () => {
          socket.destroy();
          resolve(true);
        });
        socket.on("error", (error) => {
          saw(fetchError(error));
          resolve(undefined);
        });
      });
    },
    30_000,
    "redis",
  );
}

async function stopRedis(): Promise<void> {
  const child = redis!;
  redis = null;
  if (child.exitCode !== null) return;
  const ended = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await ended;
}

/** A TCP relay to the PostgreSQL server the web app reaches it through: closing it is PostgreSQL gone. */
async function openRelay(): Promise<void> {
  const target = postgresTarget;
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = createConnection(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => s.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((r) => server.listen(relayPort, "127.0.0.1", r));
  relay = { server, sockets };
}

async function closeRelay(): Promise<void> {
  const { server, sockets } = relay!;
  relay = null;
  for (const s of sockets) s.destroy();
  await new Promise((r) => server.close(r));
}

/** One GET /api/health: its status and body (JSON where it parses), or why no response came. */
async function health(): Promise<{ status: number; body: unknown } | { error: string }> {
  try {
    const response = await fetch(`${webUrl}/api/health`, { signal: AbortSignal.timeout(HEALTH_REQUEST_MS) });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: text };
    }
  } catch (error) {
    return { error: fetchError(error) };
  }
}

/** Polls /api/health until it answers `status`, failing at once if the web app exits. */
const healthIs = (status: number, timeoutMs = HEALTH_CHANGE_MS) =>
  waitFor(
    `GET /api/health answering ${status}`,
    async (saw) => {
      const gone = exited(web);
      if (gone) throw new Error(`the web app exited (${gone})`);
      const got = await health();
      saw(JSON.stringify(got));
      return "status" in got && got.status === status ? got : undefined;
    },
    timeoutMs,
    "web",
  );

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "arena-image-tree-"));
  await chmod(base, 0o755);
  tree = join(base, "image");
  await buildImageTree(tree, { nextBuild: "reuse" });
  app = join(tree, "app");
  database = await createTestDatabase();
  postgresTarget = new URL(database.url);
  redisPort = await freePort();
  relayPort = await freePort();
  await startRedis();
  await openRelay();
}, 900_000);

afterAll(async () => {
  for (const child of [worker, web]) if (child && child.exitCode === null) child.kill("SIGKILL");
  await cluster?.stop();
  if (redis) await stopRedis();
  if (relay) await closeRelay();
  await resetEvaluationsQueueForTests();
  await resetRedisForTests();
  await resetDbForTests();
  await database?.drop();
  await rm(base, { recursive: true, force: true });
});

describe("the arena's image tree", () => {
  it("holds every program the image runs, with nothing of the checkout above it", async () => {
    for (let dir = tree; dir !== dirname(dir); dir = dirname(dir))
      expect(existsSync(join(dir, "node_modules")), `${dir}/node_modules`).toBe(false);
    expect(tree.startsWith(REPO_ROOT)).toBe(false);
    for (const file of [
      "app/server.js",
      `app/${IMAGE_BUNDLES.worker}`,
      `app/${IMAGE_BUNDLES.migrate}`,
      `app/${IMAGE_BUNDLES.seed}`,
      "app/lib/pods/stock-engines/vllm/launch.sh",
      `${IMAGE_POD_AGENT}/node`,
      `${IMAGE_POD_AGENT}/pod-agent.mjs`,
      `${IMAGE_POD_AGENT}/sim-engine/sim-engine`,
      `${IMAGE_ENGINE_LAUNCHER}/engine-launcher.py`,
    ])
      expect((await stat(join(tree, file))).isFile(), file).toBe(true);
    // the Dockerfile's build stage makes this very tree, and its runtime stage is that tree, run by a non-root user
    const dockerfile = await readFile(join(REPO_ROOT, "Dockerfile"), "utf8");
    expect(dockerfile).toMatch(/\nRUN [\s\S]*?lib\/ops\/image-tree\/build-image-tree\.ts --out \/image\n/);
    expect(dockerfile).toMatch(/COPY --from=build \/image\/app \/app/);
    expect(dockerfile).toMatch(/COPY --from=build \/image\/opt\/arena \/opt\/arena/);
    expect(dockerfile).toMatch(/^USER 1000:1000$/m);
  });

  it("migrates and seeds a fresh database with its own commands, and its web app serves", async () => {
    const url = database.url;
    const env = { DATABASE_URL: url };
    expect(await runFromTree(IMAGE_BUNDLES.migrate, env)).toMatch(/migrations: \d+ applied, 0 already applied/);
    expect(await runFromTree(IMAGE_BUNDLES.migrate, env)).toMatch(/migrations: 0 applied, \d+ already applied/);
    expect(await runFromTree(IMAGE_BUNDLES.seed, env)).toMatch(/^seeded: /);
    const migrations = (await readdir(join(app, "prisma/migrations"), { withFileTypes: true })).filter((e) =>
      e.isDirectory(),
    );
    expect(migrations.length).toBeGreaterThan(0);

    const port = await freePort();
    webUrl = `http://127.0.0.1:${port}`;
    const through = new URL(url);
    through.host = `127.0.0.1:${relayPort}`;
    web = startFromTree("web", "server.js", {
      ...(await envFromManifests("web")),
      DATABASE_URL: through.toString(),
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      NEXTAUTH_URL: webUrl,
      ARENA_PUBLIC_URL: webUrl,
      // no proxy in front here: the caller is the socket's peer
      TRUSTED_PROXY_HOPS: "0",
      PORT: String(port),
      HOSTNAME: "127.0.0.1",
    });
    expect(await healthIs(200, WEB_START_MS)).toEqual({
      status: 200,
      body: { status: "ok", checks: { postgres: "ok", redis: "ok" } },
    });
    for (const path of ["/", "/protocol", "/guide", "/tasks/qwen3-8b", "/api/protocol", "/client.py"]) {
      const response = await fetch(`${webUrl}${path}`);
      expect(response.status, `${path}: ${outputTail("web", 10)}`).toBe(200);
    }
    // the participant's kit, prebuilt in the image: served at once, never built (the image has no repository)
    const kit = await fetch(`${webUrl}/kit.tar.gz`);
    expect(kit.status).toBe(200);
    expect((await kit.arrayBuffer()).byteLength).toBeGreaterThan(1 << 20);
    // a loaded two-core host: the image's commands took some 50 s there, and the web app's start has WEB_START_MS
  }, 300_000);

  it("fails its readiness while Redis or PostgreSQL is down, and is ready again once it is back", async () => {
    await stopRedis();
    expect((await healthIs(503)).body).toMatchObject({ error: { code: "unavailable" } });
    await startRedis();
    await healthIs(200);
    await closeRelay();
    expect((await healthIs(503)).body).toMatchObject({ error: { code: "unavailable" } });
    await openRelay();
    await healthIs(200);
    // four changes of readiness, each within HEALTH_CHANGE_MS
  }, 300_000);

  it("runs a whole evaluation: submitted to its web app, run by its worker, in a pod of its agent and engine launcher", async () => {
    cluster = await startLocalCluster(base, tree);
    worker = startFromTree("worker", IMAGE_BUNDLES.worker, {
      ...cluster.workerEnv,
      DATABASE_URL: database.url,
      REDIS_URL: `redis://127.0.0.1:${redisPort}`,
      SIM_SPEED: "2",
      GPU_SLOTS: "1",
      KUBE_ENGINE_MEMORY: "2Gi",
      KUBE_AGENT_MEMORY: "4Gi",
      KUBE_ENGINE_CPU: "1",
      KUBE_AGENT_CPU: "1",
      KUBE_UNSCHEDULABLE_GRACE_SECONDS: "0",
    });
    // this process only hands out a token, in the database the image's commands made
    process.env.DATABASE_URL = database.url;
    resetEnvForTests();
    await resetDbForTests();
    const { token } = await issueToken({ accountName: "image-tree" });
    const inline = (await packDirectory(join(SIM_ENGINE_DIRS, "eagle"))).toString("base64");
    const evaluate = async () => {
      const response = await fetch(`${webUrl}/api/submissions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          task_id: "qwen3-8b",
          split: "test",
          engine: { inline },
          solution: { method: "the simulated EAGLE", kind: "eagle3" },
          profile: "ci",
        }),
      });
      expect(response.status, await response.clone().text()).toBe(201);
      const { evaluationId } = (await response.json()) as { evaluationId: string };
      const final = await waitFor(
        `evaluation ${evaluationId} finished`,
        async (saw) => {
          const row = await db().evaluation.findUnique({ where: { id: evaluationId }, include: { gates: true } });
          saw(row ? `${row.status}${row.reason ? `: ${row.reason}` : ""}` : "no row");
          return row && ["scored", "failed", "void", "cancelled"].includes(row.status) ? row : undefined;
        },
        420_000,
      );
      return { ...final, failedGates: final.gates.filter((g) => !g.passed).map((g) => g.check) };
    };
    const { first, last, history } = await judgedHonestly(evaluate);
    const why = [
      `${last.status}: ${last.reason}${history}`,
      `log tail: ${last.logTail ?? "none"}`,
      ...output.slice(-40),
      ...cluster.kubelet.errors,
    ].join("\n");
    expect(last.status, why).toBe("scored");
    expect(last.specscore, why).toBeGreaterThan(0);
    // the pod ran the image's own agent, from the image's /opt/arena
    const spec = cluster.kubelet.spec(first.podId!)!;
    const agent = spec.containers.find((c) => c.name === AGENT_CONTAINER)!;
    expect(agent.command).toEqual([
      `/${IMAGE_POD_AGENT}/node`,
      ...JUDGE_NODE_FLAGS,
      `/${IMAGE_POD_AGENT}/pod-agent.mjs`,
    ]);
    const agentLog = cluster.kubelet.output(first.podId!, AGENT_CONTAINER).map((l) => l.line);
    expect(agentLog.some((l) => l.includes('"type":"result"'))).toBe(true);
  }, 900_000);
});
