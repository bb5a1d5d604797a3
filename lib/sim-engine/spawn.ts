import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The start command every engine directory's launch.sh calls (the pod backend exports it as ARENA_SIM_ENGINE). */
export const SIM_ENGINE_BIN = fileURLToPath(new URL("./bin/sim-engine", import.meta.url));

/** The directory holding one launch.sh per mode (stock, ngram, draft, eagle, and each attack). */
export const SIM_ENGINE_DIRS = fileURLToPath(new URL("./engines/", import.meta.url));

export interface SpawnedSimEngine {
  child: ChildProcess;
  url: string;
  /** Every line the engine printed so far (stdout and stderr). */
  output: string[];
  /** Resolves once /health answers 200 (rejects if the process exits first or the timeout passes). */
  ready: Promise<void>;
  /** SIGTERM to the engine's process group, then waits for it to exit; resolves with its exit code. */
  stop(): Promise<number | null>;
}

export interface SpawnOptions {
  /** Flags after `serve` (default none). */
  args?: string[];
  /** Run this launch.sh (`launch.sh serve`) instead of the CLI directly; ARENA_SIM_ENGINE is set for it. */
  launch?: string;
  port: number;
  env?: Record<string, string>;
  readyTimeoutMs?: number;
}

/** Runs the real CLI (`bin/sim-engine serve ...`, or an engine directory's launch.sh) in its own process group. */
export function spawnSimEngine(options: SpawnOptions): SpawnedSimEngine {
  const command = options.launch ?? SIM_ENGINE_BIN;
  const child = spawn(command, ["serve", ...(options.args ?? [])], {
    env: {
      ...process.env,
      SERVED_NAME: "qwen3-8b",
      ARENA_SIM_ENGINE: SIM_ENGINE_BIN,
      ...options.env,
      PORT: String(options.port),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const output: string[] = [];
  const collect = (buf: Buffer) => output.push(...buf.toString("utf8").split("\n").filter(Boolean));
  child.stdout?.on("data", collect);
  child.stderr?.on("data", collect);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  const ready = (async () => {
    const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
    let gone = false;
    exited.then(() => {
      gone = true;
    });
    while (Date.now() < deadline) {
      if (gone) throw new Error(`sim-engine exited before it was healthy:\n${output.join("\n")}`);
      try {
        const r = await fetch(`${url}/health`);
        if (r.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`sim-engine was not healthy within ${options.readyTimeoutMs ?? 60_000} ms`);
  })();
  return {
    child,
    url,
    output,
    ready,
    async stop() {
      if (child.exitCode === null && child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
      return exited;
    },
  };
}
