/**
 * The judge's fidelity benchmark: `npx tsx lib/judge/bench/fidelity.ts [--seconds S] [--skip-ceiling]`.
 * 1. Against a server streaming with programmed timings at 20 lanes, after a warm-up wave as the judge plays one:
 *    how far the judge's TTFT, ITL and tokens/s are from what the server did (its socket reads and writes, on the
 *    same monotonic clock, in another process; see wire-server.ts) and from what it was programmed to do. TTFT's
 *    error splits into the request's transit (the judge's write to the server's read: the server's own wake-up,
 *    which its clock cannot see) and the first chunk's arrival lag (the judge's). The speed's truth is the protocol's
 *    busy speed, computed as the judge computes it, over the server's reads and writes; the same comparison with
 *    each token counted whole where it arrived shows why the judge spreads a chunk's tokens over its making.
 * 2. The client's ceiling: SSE content events per second it parses on one core from a zero-cost server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { qwen3TokenizerDir } from "../../tokenizer/packaged-qwen3";
import { createJudgeAgent } from "../client/http-agent";
import { runPass } from "../run/run-pass";
import type { PassPlan } from "../sessions/plan";
import { allBusyIntervals, intervalsMs, spreadTokensIn } from "../speeds/speeds";
import { percentiles } from "../stats";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import { createTokenCounter } from "../tokens/token-counter";
import { bareClientRun } from "./bare-client";
import { programmed } from "./bench-server";

const here = dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[process.argv.indexOf("--seconds") + 1]) || 20;
const LANES = 20;

async function startServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const argv = [process.execPath, "--import", "tsx", join(here, "bench-server.ts"), ...args];
  const child = spawn(argv[0]!, argv.slice(1), {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim().split("\n")[0]!));
    child.once("exit", (c) => reject(new Error(`bench server exited (${c})`)));
  });
  return { url, child };
}

interface LoggedRequest {
  seed: number;
  receivedNs: string;
  writesNs: string[];
  endNs: string | null;
}

interface Span {
  sentMs: number;
  doneMs: number;
  writes: number[];
}

const mean = (xs: number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/**
 * The protocol's busy speed over spans on one clock (one token per write), as the judge computes it (each write's
 * token made over the time since the previous one) and, for comparison, with each token counted whole where it was
 * written or arrived.
 */
function busySpeeds(spans: Span[]) {
  const intervals = allBusyIntervals(spans, LANES);
  const seconds = intervalsMs(intervals) / 1000;
  const records = spans.map((x) => ({
    counted: true,
    sentMs: x.sentMs,
    chunkMs: x.writes,
    chunkTokens: x.writes.map(() => 1),
  }));
  let whole = 0;
  for (const x of spans) for (const w of x.writes) if (intervals.some(([a, b]) => w >= a && w <= b)) whole += 1;
  return {
    spread: spreadTokensIn(records, intervals) / seconds,
    whole: whole / seconds,
    seconds,
    intervals: intervals.length,
  };
}

const fmt = (x: number | null, d = 3) => (x === null ? "–" : x.toFixed(d));
const abs = (xs: number[]) => xs.map(Math.abs);

async function fidelity() {
  const { url, child } = await startServer(["programmed"]);
  const dispatcher = createJudgeAgent();
  const counter = await createTokenCounter(qwen3TokenizerDir());
  try {
    const pool = fixturePool({ perFamily: 40, turns: 400, maxTokens: 256 });
    const queues = Array.from({ length: LANES }, (_, i) => [pool.sessions[2 * i]!, pool.sessions[2 * i + 1]!]);
    const warmQueues = Array.from({ length: LANES }, (_, i) => [pool.sessions[2 * LANES + i]!]);
    const options = {
      url,
      servedName: "bench",
      task: "qwen3-8b" as const,
      profile: testProfile({ passSeconds: { solo: seconds, team: seconds, busy: seconds }, maxTokensCap: null }),
      pool,
      evaluationSeed: "fidelity",
      dispatcher,
      counter,
      thinkScale: 0,
    };
    // as the judge does before every workload: one wave at the pass's concurrency opens and warms the connections
    await runPass(
      { workload: "busy", pass: "warmup", lanes: LANES, interleave: 1, salt: "warm", queues: warmQueues },
      options,
    );
    const plan: PassPlan = { workload: "busy", pass: 0, lanes: LANES, interleave: 2, salt: "bench", queues };
    const gcPauses: number[] = [];
    const gcObserver = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) gcPauses.push(e.duration);
    });
    gcObserver.observe({ entryTypes: ["gc"] });
    const result = await runPass(plan, options);
    gcObserver.disconnect();
    const bare = await bareClientRun(url, LANES, Math.min(seconds, 10), 2 ** 32);
    const res = await request(`${url}/log`, { dispatcher });
    const log = (await res.body.json()) as LoggedRequest[];
    const bySeed = new Map(log.map((l) => [l.seed, l]));
    const origin = result.originNs;
    const toMs = (ns: string) => Number(BigInt(ns) - origin) / 1e6;

    const ttftErr: number[] = [];
    const transit: number[] = [];
    const firstLag: number[] = [];
    const ttftVsProgram: number[] = [];
    const itlErr: number[] = [];
    const itlVsProgram: number[] = [];
    const arrivalLag: number[] = [];
    const serverTimerErr: number[] = [];
    const serverSpans: { sentMs: number; doneMs: number; writes: number[] }[] = [];
    for (const r of result.records) {
      const l = bySeed.get(r.seed);
      if (!l || !r.counted) continue;
      const writes = l.writesNs.map(toMs);
      const received = toMs(l.receivedNs);
      const prog = programmed(r.seed);
      serverSpans.push({ sentMs: received, doneMs: l.endNs ? toMs(l.endNs) : writes.at(-1)!, writes });
      // TTFT: the judge's (first chunk − sent) against the server's (first write − arrival)
      ttftErr.push(r.firstTokenMs! - r.sentMs - (writes[0]! - received));
      // which splits into the request's way in (judge's write → server's read) and the first chunk's way out
      transit.push(received - r.sentMs);
      firstLag.push(r.firstTokenMs! - writes[0]!);
      ttftVsProgram.push(r.firstTokenMs! - r.sentMs - prog.ttftMs);
      for (let i = 0; i < writes.length; i++) {
        arrivalLag.push(r.chunkMs[i]! - writes[i]!);
        if (i === 0) {
          serverTimerErr.push(writes[0]! - received - prog.ttftMs);
          continue;
        }
        itlErr.push(r.chunkMs[i]! - r.chunkMs[i - 1]! - (writes[i]! - writes[i - 1]!));
        itlVsProgram.push(r.chunkMs[i]! - r.chunkMs[i - 1]! - prog.chunks[i]!.gapMs);
        serverTimerErr.push(writes[i]! - writes[i - 1]! - prog.chunks[i]!.gapMs);
      }
    }
    // tokens/s while every lane is busy: the judge's against the same definition over the server's reads and writes
    const truth = busySpeeds(serverSpans);
    const judged = result.summary.speed!;
    const judgeWhole = busySpeeds(
      result.records.filter((r) => r.counted).map((r) => ({ sentMs: r.sentMs, doneMs: r.doneMs, writes: r.chunkMs })),
    );
    const endLag: number[] = [];
    for (const r of result.records) {
      const l = bySeed.get(r.seed);
      if (l?.endNs && r.counted) endLag.push(r.doneMs - toMs(l.endNs));
    }
    const floorLag: number[] = [];
    const floorTransit: number[] = [];
    const floorSpans: Span[] = [];
    const floorTruthSpans: Span[] = [];
    const bareMs = (ns: bigint) => Number(ns - origin) / 1e6;
    for (const b of bare) {
      const l = bySeed.get(b.seed);
      if (!l) continue;
      floorSpans.push({ sentMs: bareMs(b.sentNs), doneMs: bareMs(b.doneNs), writes: b.eventsNs.map(bareMs) });
      floorTruthSpans.push({
        sentMs: toMs(l.receivedNs),
        doneMs: l.endNs ? toMs(l.endNs) : toMs(l.writesNs.at(-1)!),
        writes: l.writesNs.map(toMs),
      });
      floorTransit.push(Number(BigInt(l.receivedNs) - b.sentNs) / 1e6);
      b.eventsNs.forEach((t, i) => {
        if (l.writesNs[i] !== undefined) floorLag.push(Number(t - BigInt(l.writesNs[i]!)) / 1e6);
      });
    }
    const p = (xs: number[]) => percentiles(abs(xs));
    const line = (name: string, xs: number[]) => {
      const q = p(xs);
      console.log(`  ${name.padEnd(44)} p50 ${fmt(q.p50)}  p99 ${fmt(q.p99)}  (n=${q.count})`);
    };
    console.log(
      `fidelity: ${LANES} lanes × 2 sessions, ${seconds} s, ${result.summary.counted} requests, ${result.summary.outputTokens} tokens; ${availableParallelism()} cores, the truth server ${availableParallelism() >= 8 ? "spins" : "sleeps between reads"}`,
    );
    console.log(" |error| in ms, judge against the server's own write times (same monotonic clock):");
    line("TTFT error", ttftErr);
    line("  request transit (server read − judge write)", transit);
    line("  first chunk's arrival lag", firstLag);
    line("ITL error (per chunk gap)", itlErr);
    line("chunk arrival lag (arrival − write)", arrivalLag);
    console.log(" the machine's floor: a bare socket client (no HTTP client, no parsing) against the same server:");
    line("request transit", floorTransit);
    line("chunk arrival lag", floorLag);
    console.log(" |error| in ms against the programmed timings (includes the server's own timer slop):");
    line("TTFT vs programmed", ttftVsProgram);
    line("ITL vs programmed", itlVsProgram);
    line("server timer slop (write vs programmed)", serverTimerErr);
    const err = (a: number, b: number) => fmt((100 * Math.abs(a - b)) / b, 3);
    const floor = busySpeeds(floorSpans);
    const floorTruth = busySpeeds(floorTruthSpans);
    console.log(
      `  tokens/s all-lanes-busy: judge ${fmt(judged, 2)}, server truth ${fmt(truth.spread, 2)}, error ${err(judged, truth.spread)}%; all lanes busy ${fmt(judgeWhole.seconds, 2)} s in ${judgeWhole.intervals} intervals by the judge's clock, ${fmt(truth.seconds, 2)} s in ${truth.intervals} by the server's`,
    );
    console.log(
      `    each interval is wider by a request's transit in (mean ${fmt(mean(transit))} ms) and its end's arrival lag (mean ${fmt(mean(endLag))} ms)`,
    );
    console.log(
      `    the machine's floor (bare sockets, same definition): ${fmt(floor.spread, 2)} against the server's ${fmt(floorTruth.spread, 2)}, error ${err(floor.spread, floorTruth.spread)}%`,
    );
    console.log(
      `    with each token counted whole where it arrived (not the judge's way): judge ${fmt(judgeWhole.whole, 2)}, server ${fmt(truth.whole, 2)}, error ${err(judgeWhole.whole, truth.whole)}%; floor ${err(floor.whole, floorTruth.whole)}%`,
    );
    console.log(
      `  client lateness (sent − scheduled) p99 ${fmt(result.summary.latenessMs.p99)} ms, max ${fmt(result.summary.latenessMs.max)} ms`,
    );
    console.log(
      `  judge GC during the pass: ${gcPauses.length} pauses, ${fmt(
        gcPauses.reduce((a, b) => a + b, 0),
        1,
      )} ms in all, longest ${fmt(Math.max(0, ...gcPauses))} ms`,
    );
    const ok = p(ttftErr).p99! < 1 && p(itlErr).p99! < 1 && Math.abs(judged - truth.spread) / truth.spread < 0.005;
    console.log(`  targets (TTFT/ITL p99 < 1 ms, tokens/s < 0.5%): ${ok ? "met" : "NOT met"}`);
  } finally {
    child.kill();
    await counter.close();
    await dispatcher.destroy();
  }
}

async function ceiling() {
  const burstTokens = 4000;
  const { url, child } = await startServer(["burst", String(burstTokens)]);
  const dispatcher = createJudgeAgent();
  const counter = await createTokenCounter(qwen3TokenizerDir());
  try {
    const pool = fixturePool({ perFamily: 40, turns: 400, maxTokens: 100_000 });
    for (const lanes of [1, 4, 20]) {
      const queues = Array.from({ length: lanes }, (_, i) => [pool.sessions[i]!]);
      const plan: PassPlan = { workload: "busy", pass: 0, lanes, interleave: 1, salt: `ceiling-${lanes}`, queues };
      const t0 = process.hrtime.bigint();
      const cpu0 = process.cpuUsage();
      const r = await runPass(plan, {
        url,
        servedName: "bench",
        task: "qwen3-8b",
        profile: testProfile({ passSeconds: { solo: 5, team: 5, busy: 5 }, maxTokensCap: null }),
        pool,
        evaluationSeed: "ceiling",
        dispatcher,
        counter,
        thinkScale: 0,
      });
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const cpu = process.cpuUsage(cpu0);
      const cpuSeconds = (cpu.user + cpu.system) / 1e6;
      const events = r.records.reduce((a, x) => a + x.chunkMs.length, 0);
      // per CPU-second of this process's main thread: the rate one core sustains, whatever else the machine runs
      console.log(
        `  ceiling, ${String(lanes).padStart(2)} lanes: ${(events / cpuSeconds).toFixed(0)} SSE events per CPU-second of the judge process; ${(events / wall).toFixed(0)} events/s wall over ${wall.toFixed(1)} s, ${r.records.length} replies of ${burstTokens} events`,
      );
    }
  } finally {
    child.kill();
    await counter.close();
    await dispatcher.destroy();
  }
}

await fidelity();
if (!process.argv.includes("--skip-ceiling")) {
  console.log("client ceiling with a zero-cost server (each reply written at once):");
  await ceiling();
}
process.exit(0);
