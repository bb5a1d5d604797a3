import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Dispatcher } from "undici";
import { request } from "undici";
import type { WireLogEntry } from "./wire-server";

export const BENCH_DIR = dirname(fileURLToPath(import.meta.url));

/** Where the benchmark's processes run: each a taskset CPU list, or null to leave it to the scheduler. */
export interface Placement {
  /** The judge's lanes' (main) thread, and the comparison and bare clients. */
  judge: string | null;
  /** The judge's other threads (V8's GC and compiler threads, libuv's); null: with the lanes, on `judge`. */
  helpers: string | null;
  /** The token counter's worker thread, kept off the lanes' core. */
  counter: string | null;
  /** The wire server's process. */
  server: string | null;
}

export const UNPINNED: Placement = { judge: null, helpers: null, counter: null, server: null };

/**
 * The placement `--pin` gives: the judge's lanes alone on CPU 2, its other threads (V8's collector and compiler
 * helpers, libuv's) on 6 and 7, its token counter on 3, the server on 4 and 5. `--helper-cpus 2` puts the helpers
 * with the lanes: the whole judge but its counter on one core.
 */
export const PINNED: Placement = { judge: "2", helpers: "6-7", counter: "3", server: "4-5" };

/**
 * `--pin` (PINNED), or any of `--judge-cpus`, `--helper-cpus`, `--counter-cpus`, `--server-cpus` (taskset lists
 * such as `2` or `4-5,8`), which override it one by one.
 */
export function parsePlacement(argv: readonly string[]): Placement {
  const value = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? (argv[i + 1] ?? null) : null;
  };
  const base = argv.includes("--pin") ? PINNED : UNPINNED;
  return {
    judge: value("--judge-cpus") ?? base.judge,
    helpers: value("--helper-cpus") ?? base.helpers,
    counter: value("--counter-cpus") ?? base.counter,
    server: value("--server-cpus") ?? base.server,
  };
}

/** argv run under `taskset -c cpus` when cpus are given. */
export const onCpus = (cpus: string | null, argv: string[]): string[] =>
  cpus === null ? argv : ["taskset", "-c", cpus, ...argv];

/** Pins one thread (a kernel thread id) or, with `allThreads`, every thread of a process, to `cpus`. */
export function pin(id: number, cpus: string, allThreads = false): void {
  const args = [...(allThreads ? ["-a"] : []), "-p", "-c", cpus, String(id)];
  const r = spawnSync("taskset", args, { encoding: "utf8" });
  if (r.error || r.status !== 0)
    throw new Error(`taskset ${args.join(" ")} failed: ${r.error?.message ?? r.stderr.trim()}`);
}

/**
 * Pins this process: every thread on the helpers' CPUs, then the lanes' (main) thread on the judge's; threads started
 * later inherit the main thread's (the counter's is moved after it starts).
 */
export function pinJudge(placement: Placement): void {
  if (placement.judge === null) return;
  pin(process.pid, placement.helpers ?? placement.judge, true);
  if (placement.helpers !== null) pin(process.pid, placement.judge);
}

/** CPU time a thread of this process has run, in ms (Linux's schedstat, in ns); null where there is none. */
export function threadCpuMs(tid: number | null): number | null {
  if (tid === null) return null;
  try {
    return Number(readFileSync(`/proc/self/task/${tid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return null;
  }
}

/** Starts bench-server.ts in its own process (on `cpus` when given) and waits for its URL. */
export async function startServer(args: string[], cpus: string | null): Promise<{ url: string; child: ChildProcess }> {
  const argv = onCpus(cpus, [process.execPath, "--import", "tsx", join(BENCH_DIR, "bench-server.ts"), ...args]);
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim().split("\n")[0]!));
    child.once("exit", (c) => reject(new Error(`bench server exited (${c})`)));
  });
  return { url, child };
}

/** The server's log of the seeds in [from, to), taken out of it. */
export async function takeLog(url: string, dispatcher: Dispatcher, from: number, to: number): Promise<WireLogEntry[]> {
  const res = await request(`${url}/log/take?from=${from}&to=${to}`, { dispatcher });
  return (await res.body.json()) as WireLogEntry[];
}

/** Quantiles of a sample (linear interpolation between closest ranks, as stats.ts and numpy do) and its max. */
export interface Tail {
  count: number;
  p50: number | null;
  p99: number | null;
  p999: number | null;
  max: number | null;
}

export function tail(values: ArrayLike<number>): Tail {
  const sorted = Float64Array.from(values).sort();
  const at = (p: number) => {
    if (sorted.length === 0) return null;
    const rank = (p / 100) * (sorted.length - 1);
    const lo = Math.floor(rank);
    const hi = Math.ceil(rank);
    return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
  };
  return { count: sorted.length, p50: at(50), p99: at(99), p999: at(99.9), max: at(100) };
}

export const fmt = (x: number | null | undefined, d = 3) => (x === null || x === undefined ? "–" : x.toFixed(d));

/** A figure beside its target: "0.412 ms (target ≤ 0.5: met)". */
export function against(value: number | null, target: number, op: "≤" | "≥", unit: string, d = 3): string {
  const met = value !== null && (op === "≤" ? value <= target : value >= target);
  return `${fmt(value, d)}${unit} (target ${op} ${target}${unit}: ${met ? "met" : "NOT met"})`;
}
