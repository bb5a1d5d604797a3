/**
 * The judge's fidelity benchmark: `npx tsx lib/judge/bench/fidelity.ts [--seconds S]`.
 * 1. Against a server streaming with programmed timings at 20 lanes, after a warm-up wave as the judge plays one:
 *    how far the judge's TTFT, ITL and tokens/s are from what the server did (its socket reads and writes, on the
 *    same monotonic clock, in another process; see wire-server.ts) and from what it was programmed to do. TTFT's
 *    error splits into the request's transit (the judge's write to the server's read: the server's own wake-up,
 *    which its clock cannot see) and the first chunk's arrival lag (the judge's).
 * 2. The client's ceiling: SSE content events per second it parses on one core from a zero-cost server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { PerformanceObserver } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { createJudgeAgent } from "../client/http-agent";
import { runPass } from "../run/run-pass";
import type { PassPlan } from "../sessions/plan";
import { allBusyIntervals } from "../speeds/speeds";
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

const fmt = (x: number | null, d = 3) => (x === null ? "–" : x.toFixed(d));
const abs = (xs: number[]) => xs.map(Math.abs);

async function fidelity() {
  const { url, child } = await startServer(["programmed"]);
  const dispatcher = createJudgeAgent();
  const counter = await createTokenCounter();
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
    // tokens/s while every lane is busy, from the server's side: a request's arrival to its response's end, one token per write
    const busy = allBusyIntervals(serverSpans, LANES);
    const busyMs = busy.reduce((a, [s, e]) => a + (e - s), 0);
    let tokens = 0;
    for (const s of serverSpans) for (const w of s.writes) if (busy.some(([a, b]) => w >= a && w <= b)) tokens += 1;
    const truthSpeed = tokens / (busyMs / 1000);
    const judged = result.summary.speed!;
    // the speed's error splits into which tokens the judge's intervals hold (server writes inside them) and where
    // its intervals lie (its clock sees a lane's end and next send a transit and a read later than the server does)
    const judgeIntervals = allBusyIntervals(result.records, LANES);
    const judgeBusyMs = judgeIntervals.reduce((a, [s, e]) => a + (e - s), 0);
    let writesInJudgeIntervals = 0;
    for (const s of serverSpans)
      for (const w of s.writes) if (judgeIntervals.some(([a, b]) => w >= a && w <= b)) writesInJudgeIntervals += 1;
    const writesSpeed = writesInJudgeIntervals / (judgeBusyMs / 1000);
    const floorLag: number[] = [];
    const floorTransit: number[] = [];
    for (const b of bare) {
      const l = bySeed.get(b.seed);
      if (!l) continue;
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
    console.log(
      `  tokens/s all-lanes-busy: judge ${fmt(judged, 2)}, server truth ${fmt(truthSpeed, 2)}, error ${fmt((100 * Math.abs(judged - truthSpeed)) / truthSpeed, 3)}%`,
    );
    console.log(
      `    the server's writes inside the judge's intervals: ${fmt(writesSpeed, 2)} tokens/s (token attribution error ${fmt((100 * Math.abs(judged - writesSpeed)) / writesSpeed, 3)}%); all lanes busy ${fmt(judgeBusyMs / 1000, 2)} s in ${judgeIntervals.length} intervals by the judge's clock, ${fmt(busyMs / 1000, 2)} s in ${busy.length} by the server's`,
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
    const ok = p(ttftErr).p99! < 1 && p(itlErr).p99! < 1 && Math.abs(judged - truthSpeed) / truthSpeed < 0.005;
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
  const counter = await createTokenCounter();
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
console.log("client ceiling with a zero-cost server (each reply written at once):");
await ceiling();
process.exit(0);
