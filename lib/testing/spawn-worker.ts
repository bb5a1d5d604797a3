import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

export interface SpawnedWorker {
  child: ChildProcess;
  output: string[];
  /** Kills the worker's whole process group at once, as a crash would. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts the real worker process (workers/main.ts) with the given environment on top of this one's. */
export function spawnWorker(extraEnv: Record<string, string>): SpawnedWorker {
  const child = spawn(process.execPath, ["--import", "tsx", "workers/main.ts"], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...extraEnv } as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    stream.on("data", (c: Buffer) => {
      output.push(...c.toString().split("\n").filter(Boolean));
      if (output.length > 400) output.splice(0, output.length - 400);
    });
  }
  return {
    child,
    output,
    async kill(signal = "SIGKILL") {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill(signal);
      await exited;
    },
  };
}

/**
 * A worker's environment for whole-evaluation tests: the test context's database and queue, local pods on the
 * simulated engine, and a lease short enough that a dead worker's evaluation resumes within seconds.
 */
export function simulatedWorkerEnv(
  context: { databaseUrl: string; queuePrefix: string },
  dataDir: string,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DATABASE_URL: context.databaseUrl,
    QUEUE_PREFIX: context.queuePrefix,
    ARENA_DATA_DIR: dataDir,
    POD_BACKEND: "local",
    ENGINE_RUNTIME: "sim",
    SIM_SPEED: "2",
    EVALUATION_LEASE_SECONDS: "6",
    WORKER_STALLED_MS: "4000",
    ...extra,
  };
}
