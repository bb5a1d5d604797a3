import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { until } from "../testing/until";
import { repoRoot, type SupervisedApp, superviseApp, superviseRedis } from "./arena-stack";
import { ensureRedis, freePort, type Service } from "./services";
import { restartDelay, type Supervised } from "./supervisor";

describe("restartDelay", () => {
  it("doubles from a second up to thirty", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 12].map((n) => restartDelay(n))).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000,
    ]);
  });
});

// `npm run arena`'s supervision, on real processes: the real worker, the app's API as the web process (what `next
// start` serves, without a build), a private redis-server with its append-only file.
let ctx: ArenaTestContext;
let dir: string;
let redis: Service;
let redisProcess: Supervised | null = null;
let app: SupervisedApp | undefined;
const log: string[] = [];
const output: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "arena-supervisor-"));
  redis = await ensureRedis({ dir: path.join(dir, "redis"), port: 0 });
  ctx = await setupArenaTestContext({ REDIS_URL: redis.url });
});

afterAll(async () => {
  await app?.stop();
  await redisProcess?.stop();
  await ctx?.teardown();
  await rm(dir, { recursive: true, force: true });
});

const health = async (url: string) =>
  fetch(`${url}/api/health`, { signal: AbortSignal.timeout(5_000) }).then(
    (r) => r.status,
    () => 0,
  );

describe("the arena's supervisor", () => {
  it("restarts a killed worker and a killed private redis-server, a log line each time, the web app serving all along", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    redisProcess = await superviseRedis(redis, path.join(dir, "redis"), (line) => log.push(line));
    app = await superviseApp({
      env: {
        ...process.env,
        DATABASE_URL: ctx.databaseUrl,
        REDIS_URL: redis.url,
        QUEUE_PREFIX: ctx.queuePrefix,
        ARENA_DATA_DIR: path.join(dir, "data"),
        POD_BACKEND: "local",
        ENGINE_RUNTIME: "sim",
      },
      port,
      baseUrl: `${url}/api/health`,
      webCommand: {
        command: process.execPath,
        args: ["--import", "tsx", path.join(repoRoot, "lib/ops/drills/serve-api.ts"), String(port)],
      },
      write: (line) => output.push(line),
      log: (line) => log.push(line),
    });
    const web = app.web.current()!.pid;
    const workerStarts = () => output.filter((l) => l.startsWith("[worker]") && l.includes('"worker started"')).length;
    await until(async () => (workerStarts() === 1 ? true : undefined), 60_000, 100);
    expect(await health(url)).toBe(200);

    // the web app is asked every 100 ms while the worker dies and comes back
    const answers: number[] = [];
    let probing = true;
    const probe = (async () => {
      while (probing) {
        answers.push(await health(url));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const worker = app.worker.current()!.pid!;
    process.kill(worker, "SIGKILL");
    await until(async () => (workerStarts() === 2 ? true : undefined), 60_000, 100);
    probing = false;
    await probe;
    expect(log).toContain("the worker process exited (signal SIGKILL); restarting it in 1.0 s (restart 1)");
    expect(log.find((l) => l.startsWith("the worker process is running again"))).toMatch(/\(pid \d+, restart 1\)$/);
    expect(app.worker.current()!.pid).not.toBe(worker);
    expect(app.web.current()!.pid).toBe(web);
    expect(answers.length).toBeGreaterThan(5);
    expect(answers.every((status) => status === 200)).toBe(true);

    // the private redis-server: killed outright, back on its port with what it held
    const client = new Redis(redis.url, { maxRetriesPerRequest: null });
    client.on("error", () => undefined);
    await client.set("arena:supervisor-test", "kept");
    // appendfsync everysec answers a write before it reaches the file while the last second's fsync is still running
    // (up to 2 s on a loaded disk): what it held is what its append-only file holds, so the kill waits for the write
    const aofDir = path.join(dir, "redis", "appendonlydir");
    await until(
      async () => {
        const files = (await readdir(aofDir)).filter((f) => f.endsWith(".incr.aof"));
        const texts = await Promise.all(files.map((f) => readFile(path.join(aofDir, f), "utf8")));
        return texts.some((t) => t.includes("arena:supervisor-test")) ? true : undefined;
      },
      10_000,
      50,
    );
    process.kill(redis.pid!, "SIGKILL");
    await until(
      async () => (log.some((l) => l.startsWith("the private redis-server is running again")) ? true : undefined),
      30_000,
      50,
    );
    expect(log).toContain("the private redis-server exited (signal SIGKILL); restarting it in 1.0 s (restart 1)");
    expect(await client.get("arena:supervisor-test")).toBe("kept");
    client.disconnect();
    await until(async () => ((await health(url)) === 200 ? true : undefined), 20_000, 200);
    expect(app.web.current()!.pid).toBe(web);
    expect(app.worker.current()!.exitCode).toBeNull();
    expect(app.worker.restarts).toBe(1);
  }, 180_000);
});
