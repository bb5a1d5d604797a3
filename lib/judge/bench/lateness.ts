/**
 * The fidelity benchmark's lateness section: streams paced at 150 tokens/s, each chunk stamped by the wire server
 * with its send time, read by the judge's `streamChat` alone, by the judge as it runs a pass (its token counter
 * included), by the comparison client (vLLM's request function, compare-client.py) and by bare sockets (the
 * machine's floor), one after another against the same server process. A chunk's lateness is its arrival as the
 * client stamped it minus the server's stamp: one monotonic clock (CLOCK_MONOTONIC) on both sides.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Dispatcher } from "undici";
import { StreamBuffers } from "../client/stream-buffers";
import { streamChat } from "../client/stream-chat";
import { nowMs, nsToMs } from "../clock";
import { type GcPause, watchGc } from "../run/gc-watch";
import { runPass } from "../run/run-pass";
import type { PassPlan } from "../sessions/plan";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import type { TokenCounter } from "../tokens/token-counter";
import { bareClientRun } from "./bare-client";
import { against, BENCH_DIR, fmt, onCpus, type Tail, tail, takeLog } from "./bench-kit";
import type { WireLogEntry } from "./wire-server";

/** A chunk later than this is "late": the GC pauses that overlapped such chunks are listed. */
export const LATE_MS = 1;

/**
 * Each chunk's server stamp, client arrival and the server's own delay (its write's return minus the stamp; NaN where
 * the log has none), ms on the judge's clock, in arrival order per reply.
 */
class Chunks {
  stamps: number[] = [];
  arrivals: number[] = [];
  serverDelays: number[] = [];
  add(stampMs: number, arrivalMs: number, serverDelayMs: number) {
    this.stamps.push(stampMs);
    this.arrivals.push(arrivalMs);
    this.serverDelays.push(serverDelayMs);
  }
  lateness(): number[] {
    return this.arrivals.map((a, i) => a - this.stamps[i]!);
  }
}

/** One of a run's latest chunks: how late, how much of it the server's own delay, and what else was late near it. */
export interface WorstChunk {
  latenessMs: number;
  serverDelayMs: number | null;
  /** Other chunks more than LATE_MS late whose transit overlapped this one's: a burst, or this chunk alone. */
  lateNeighbours: number;
  /** The longest GC pause of the judge inside this chunk's transit, if any. */
  gcMs: number | null;
}

/** The `n` latest chunks, latest first, each with its server delay, late neighbours and overlapping GC pause. */
export function worstChunks(
  chunks: { stamps: readonly number[]; arrivals: readonly number[]; serverDelays: readonly number[] },
  pauses: readonly GcPause[] | null,
  n = 5,
): WorstChunk[] {
  const order = chunks.arrivals.map((_, i) => i);
  const late = (i: number) => chunks.arrivals[i]! - chunks.stamps[i]!;
  order.sort((a, b) => late(b) - late(a));
  const lateOnes = order.filter((i) => late(i) > LATE_MS);
  return order.slice(0, n).map((i) => {
    const from = chunks.stamps[i]!;
    const to = chunks.arrivals[i]!;
    let lateNeighbours = 0;
    for (const j of lateOnes) if (j !== i && chunks.stamps[j]! <= to && chunks.arrivals[j]! >= from) lateNeighbours++;
    let gcMs: number | null = null;
    for (const p of pauses ?? [])
      if (p.startMs <= to && p.startMs + p.durationMs >= from) gcMs = Math.max(gcMs ?? 0, p.durationMs);
    const d = chunks.serverDelays[i]!;
    return { latenessMs: late(i), serverDelayMs: Number.isNaN(d) ? null : d, lateNeighbours, gcMs };
  });
}

export interface LatenessRow {
  client: string;
  streams: number;
  requests: number;
  failed: number;
  tail: Tail;
  /** The judge's own GC pauses over the run, and which of them overlapped late chunks (null for other clients). */
  gc: GcOverlap | null;
  /** The server's own delay (write returned minus stamp) over the chunks this client saw; null where not logged. */
  server: Tail | null;
  /** The latest chunks, taken apart; empty where the client's arrivals are not matched to the log. */
  worst: WorstChunk[];
}

export interface GcOverlap {
  pauses: number;
  maxMs: number | null;
  late: number;
  lateInGc: number;
  /** The pauses that overlapped at least one late chunk, longest first. */
  overlapping: GcPause[];
}

/** Which late chunks (arrival − stamp > LATE_MS) had a GC pause of the judge's thread inside their time in transit. */
export function gcOverlap(
  chunks: { stamps: readonly number[]; arrivals: readonly number[] },
  pauses: readonly GcPause[],
): GcOverlap {
  const hit = new Set<GcPause>();
  let late = 0;
  let lateInGc = 0;
  for (let i = 0; i < chunks.arrivals.length; i++) {
    const from = chunks.stamps[i]!;
    const to = chunks.arrivals[i]!;
    if (to - from <= LATE_MS) continue;
    late++;
    let overlapped = false;
    for (const p of pauses) {
      if (p.startMs > to) break;
      if (p.startMs + p.durationMs >= from) {
        overlapped = true;
        hit.add(p);
      }
    }
    if (overlapped) lateInGc++;
  }
  let maxMs: number | null = null;
  for (const p of pauses) maxMs = maxMs === null ? p.durationMs : Math.max(maxMs, p.durationMs);
  return {
    pauses: pauses.length,
    maxMs,
    late,
    lateInGc,
    overlapping: [...hit].sort((a, b) => b.durationMs - a.durationMs),
  };
}

/** Matches replies (a seed and its content chunks' arrivals) to the server's stamps for that seed. */
export function matchStamps(log: readonly WireLogEntry[], replies: { seed: number; arrivalsMs: ArrayLike<number> }[]) {
  const bySeed = new Map(log.map((l) => [l.seed, l]));
  const chunks = new Chunks();
  for (const r of replies) {
    const l = bySeed.get(r.seed);
    if (!l) continue;
    const n = Math.min(l.writesNs.length, r.arrivalsMs.length);
    for (let i = 0; i < n; i++) {
      const stampMs = nsToMs(BigInt(l.writesNs[i]!));
      const sent = l.sentNs?.[i];
      chunks.add(stampMs, r.arrivalsMs[i]!, sent === undefined ? Number.NaN : nsToMs(BigInt(sent)) - stampMs);
    }
  }
  return chunks;
}

interface RunContext {
  url: string;
  dispatcher: Dispatcher;
  counter: TokenCounter;
  lanes: number;
  seconds: number;
  /** CPUs of the judge's process, for the comparison client. */
  judgeCpus: string | null;
}

/** `lanes` lanes of the judge's `streamChat`, back to back for `seconds`, seeds from `firstSeed`; no counting. */
export async function streamLanes(
  url: string,
  dispatcher: Dispatcher,
  lanes: number,
  seconds: number,
  firstSeed: number,
  /** Counts content events as they are parsed. */
  tally?: { events: number },
) {
  const onContent = tally ? () => void tally.events++ : undefined;
  const until = nowMs() + seconds * 1000;
  let next = firstSeed;
  const replies: { seed: number; arrivalsMs: number[]; events: number; error: string | null }[] = [];
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      const buffers = new StreamBuffers();
      while (nowMs() < until) {
        const seed = next++;
        const body = { model: "bench", messages: [{ role: "user", content: `stream ${seed}` }], stream: true, seed };
        const out = await streamChat(`${url}/v1/chat/completions`, body, { dispatcher, buffers, onContent });
        replies.push({ seed, arrivalsMs: out.chunkMs, events: out.chunkMs.length, error: out.error });
      }
    }),
  );
  return replies;
}

const SEED_SPAN = 2 ** 28;
/** Seed ranges above every seed a pass sends (those are 32-bit), one per run, so each run takes its own log. */
const seedBase = (run: number) => 2 ** 33 + run * SEED_SPAN;

async function judgeStreamChat(ctx: RunContext, run: number): Promise<LatenessRow> {
  // a second of warm-up (connections opened, code compiled), not measured
  await streamLanes(ctx.url, ctx.dispatcher, ctx.lanes, 1, seedBase(run));
  await takeLog(ctx.url, ctx.dispatcher, seedBase(run), seedBase(run) + SEED_SPAN);
  const gc = watchGc();
  const replies = await streamLanes(ctx.url, ctx.dispatcher, ctx.lanes, ctx.seconds, seedBase(run) + SEED_SPAN / 2);
  const pauses = gc.stop();
  const log = await takeLog(ctx.url, ctx.dispatcher, seedBase(run), seedBase(run) + SEED_SPAN);
  const chunks = matchStamps(log, replies);
  return {
    client: "the judge's streamChat",
    streams: ctx.lanes,
    requests: replies.length,
    failed: replies.filter((r) => r.error !== null).length,
    tail: tail(chunks.lateness()),
    gc: gcOverlap(chunks, pauses),
    ...serverSide(chunks, pauses),
  };
}

/** The server's delay tail and the worst chunks taken apart, for a client whose arrivals are matched to the log. */
function serverSide(chunks: Chunks, pauses: readonly GcPause[] | null) {
  const delays = chunks.serverDelays.filter((d) => !Number.isNaN(d));
  return { server: delays.length > 0 ? tail(delays) : null, worst: worstChunks(chunks, pauses) };
}

async function judgePass(ctx: RunContext): Promise<LatenessRow> {
  const L = ctx.lanes;
  // enough turns for a lane's two sessions at about two replies a second, and no more (the pool lives in the heap)
  const pool = fixturePool({
    perFamily: Math.ceil((3 * L) / 2),
    turns: Math.ceil(ctx.seconds * 2) + 10,
    maxTokens: 256,
  });
  const queues = Array.from({ length: L }, (_, i) => [pool.sessions[2 * i]!, pool.sessions[2 * i + 1]!]);
  const warmQueues = Array.from({ length: L }, (_, i) => [pool.sessions[2 * L + i]!]);
  const options = {
    url: ctx.url,
    servedName: "bench",
    task: "qwen3-8b" as const,
    profile: testProfile({
      passSeconds: { solo: ctx.seconds, team: ctx.seconds, busy: ctx.seconds },
      maxTokensCap: null,
    }),
    pool,
    evaluationSeed: `lateness-${L}`,
    dispatcher: ctx.dispatcher,
    counter: ctx.counter,
    thinkScale: 0,
  };
  await runPass(
    { workload: "busy", pass: "warmup", lanes: L, interleave: 1, salt: "warm", queues: warmQueues },
    options,
  );
  await takeLog(ctx.url, ctx.dispatcher, 0, 2 ** 32);
  const plan: PassPlan = { workload: "busy", pass: 0, lanes: L, interleave: 2, salt: "paced", queues };
  const gc = watchGc();
  const result = await runPass(plan, options);
  const pauses = gc.stop();
  const log = await takeLog(ctx.url, ctx.dispatcher, 0, 2 ** 32);
  const origin = nsToMs(result.originNs);
  // the full collection runPass asks for before its clock starts is not the pass's
  const passPauses = pauses.filter((p) => p.startMs >= origin);
  const chunks = matchStamps(
    log,
    result.records.map((r) => ({ seed: r.seed, arrivalsMs: r.chunkMs.map((t) => origin + t) })),
  );
  return {
    client: "the judge with its token counter",
    streams: L,
    requests: result.records.length,
    failed: result.summary.failed,
    tail: tail(chunks.lateness()),
    gc: gcOverlap(chunks, passPauses),
    ...serverSide(chunks, passPauses),
  };
}

async function bareFloor(ctx: RunContext, run: number): Promise<LatenessRow> {
  const replies = await bareClientRun(ctx.url, ctx.lanes, ctx.seconds, seedBase(run));
  const log = await takeLog(ctx.url, ctx.dispatcher, seedBase(run), seedBase(run) + SEED_SPAN);
  const chunks = matchStamps(
    log,
    replies.map((r) => ({ seed: r.seed, arrivalsMs: r.eventsNs.map(nsToMs) })),
  );
  return {
    client: "bare sockets (the machine's floor)",
    streams: ctx.lanes,
    requests: replies.length,
    failed: 0,
    tail: tail(chunks.lateness()),
    gc: null,
    ...serverSide(chunks, null),
  };
}

export interface CompareResult {
  client: string;
  requests: number;
  events: number;
  stamped: number;
  errors: number;
  seconds: number;
  lateness: Float64Array;
}

/** Runs compare-client.py (python3, on the judge's CPUs) against `url`; null when no python3 runs here. */
export async function runCompareClient(
  url: string,
  lanes: number,
  seconds: number,
  firstSeed: number,
  cpus: string | null,
): Promise<CompareResult | null> {
  const dir = mkdtempSync(join(tmpdir(), "judge-compare-"));
  const out = join(dir, "lateness.f64");
  const argv = onCpus(cpus, [
    process.env.BENCH_PYTHON ?? "python3",
    join(BENCH_DIR, "compare-client.py"),
    "--url",
    url,
    "--lanes",
    String(lanes),
    "--seconds",
    String(seconds),
    "--first-seed",
    String(firstSeed),
    "--out",
    out,
  ]);
  try {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => {
      child.once("error", () => resolve(null));
      child.once("exit", (c) => resolve(c));
    });
    if (code !== 0) {
      console.log(`  the comparison client did not run (${argv[0]} exited ${code}): its rows are left out`);
      return null;
    }
    const summary = JSON.parse(stdout.trim().split("\n").at(-1)!) as Omit<CompareResult, "lateness">;
    const bytes = readFileSync(out);
    const lateness = new Float64Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 8);
    return { ...summary, lateness: Float64Array.from(lateness) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The lateness table for each lane count, with the targets beside the judge's figures at 100 streams. */
export async function latenessSection(options: {
  url: string;
  dispatcher: Dispatcher;
  counter: TokenCounter;
  laneCounts: number[];
  seconds: number;
  judgeCpus: string | null;
}) {
  const rows: LatenessRow[] = [];
  const compare = new Map<number, LatenessRow>();
  let run = 0;
  for (const lanes of options.laneCounts) {
    const ctx: RunContext = { ...options, lanes };
    rows.push(await bareFloor(ctx, run++));
    rows.push(await judgeStreamChat(ctx, run++));
    rows.push(await judgePass(ctx));
    const c = await runCompareClient(options.url, lanes, options.seconds, seedBase(run++), options.judgeCpus);
    if (c) {
      const row: LatenessRow = {
        client: `comparison: ${c.client}`,
        streams: lanes,
        requests: c.requests,
        failed: c.errors,
        tail: tail(c.lateness),
        gc: null,
        server: null,
        worst: [],
      };
      rows.push(row);
      compare.set(lanes, row);
    }
  }
  const head = `  ${"client".padEnd(58)} ${"streams".padStart(7)} ${"chunks".padStart(8)} ${"p50".padStart(7)} ${"p99".padStart(7)} ${"p99.9".padStart(7)} ${"max".padStart(8)}  judge GC: pauses, longest; late chunks (> ${LATE_MS} ms) in a pause`;
  console.log(head);
  for (const r of rows) {
    const t = r.tail;
    const gc = r.gc ? `${r.gc.pauses}, ${fmt(r.gc.maxMs, 2)} ms; ${r.gc.lateInGc} of ${r.gc.late}` : "";
    console.log(
      `  ${r.client.slice(0, 58).padEnd(58)} ${String(r.streams).padStart(7)} ${String(t.count).padStart(8)} ${fmt(t.p50).padStart(7)} ${fmt(t.p99).padStart(7)} ${fmt(t.p999).padStart(7)} ${fmt(t.max).padStart(8)}  ${gc}${r.failed ? `  (${r.failed} failed)` : ""}`,
    );
  }
  console.log(
    `  the server's own delay (its write's return minus the stamp, in every client's lateness): ${rows
      .filter((r) => r.server)
      .map((r) => `${r.client} at ${r.streams}: p99 ${fmt(r.server!.p99)}, max ${fmt(r.server!.max)} ms`)
      .join("; ")}`,
  );
  for (const r of rows) {
    if (r.worst.length === 0) continue;
    const parts = r.worst.map(
      (w) =>
        `${fmt(w.latenessMs, 2)} (server ${fmt(w.serverDelayMs, 2)}, ${w.lateNeighbours} late beside${w.gcMs === null ? "" : `, GC ${fmt(w.gcMs, 2)}`})`,
    );
    console.log(`  latest chunks, ${r.client} at ${r.streams} streams, ms: ${parts.join("; ")}`);
  }
  for (const r of rows) {
    if (!r.gc || r.gc.overlapping.length === 0) continue;
    const top = r.gc.overlapping
      .slice(0, 6)
      .map((p) => `${p.kind} ${fmt(p.durationMs, 2)} ms`)
      .join(", ");
    console.log(
      `  GC pauses that overlapped late chunks, ${r.client} at ${r.streams} streams: ${r.gc.overlapping.length} (longest: ${top})`,
    );
  }
  const judged = rows.find((r) => r.client === "the judge with its token counter" && r.streams === 100);
  if (judged) {
    console.log(
      `  target, the judge with its token counter at 100 streams: p99 ${against(judged.tail.p99, 0.5, "≤", " ms")}, max ${against(judged.tail.max, 5, "≤", " ms", 2)}`,
    );
    const c = compare.get(100);
    if (c) {
      const ratio = (a: number | null, b: number | null) => (a === null || b === null || b === 0 ? null : a / b);
      console.log(
        `  against the comparison client in this run (its p99 ${fmt(c.tail.p99)} ms, max ${fmt(c.tail.max, 2)} ms): p99 ${against(ratio(judged.tail.p99, c.tail.p99), 0.5, "≤", "×", 2)}, max ${against(ratio(judged.tail.max, c.tail.max), 0.5, "≤", "×", 2)}`,
      );
    }
  }
  return rows;
}
