/**
 * The judge's fidelity benchmark: `npx tsx lib/judge/bench/fidelity.ts [--seconds S]`.
 * 1. Against a server streaming with programmed timings at 20 lanes: how far the judge's TTFT, ITL and tokens/s are
 *    from what the server did (its write times, on the same monotonic clock, in another process) and from what it
 *    was programmed to do.
 * 2. The client's ceiling: SSE content events per second it parses on one core from a zero-cost server.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { request } from "undici";
import { createJudgeAgent } from "../client/http-agent";
import { runPass } from "../run/run-pass";
import type { PassPlan } from "../sessions/plan";
import { allBusyIntervals } from "../speeds/speeds";
import { percentiles } from "../stats";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import { createTokenCounter } from "../tokens/token-counter";
import { programmed } from "./bench-server";

const here = dirname(fileURLToPath(import.meta.url));
const seconds = Number(process.argv[process.argv.indexOf("--seconds") + 1]) || 20;
const LANES = 20;

async function startServer(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["--import", "tsx", join(here, "bench-server.ts"), ...args], {
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
    const plan: PassPlan = { workload: "busy", pass: 0, lanes: LANES, interleave: 2, salt: "bench", queues };
    const result = await runPass(plan, {
      url,
      servedName: "bench",
      task: "qwen3-8b",
      profile: testProfile({ passSeconds: { solo: seconds, team: seconds, busy: seconds }, maxTokensCap: null }),
      pool,
      evaluationSeed: "fidelity",
      dispatcher,
      counter,
      thinkScale: 0,
    });
    const res = await request(`${url}/log`, { dispatcher });
    const log = (await res.body.json()) as LoggedRequest[];
    const bySeed = new Map(log.map((l) => [l.seed, l]));
    const origin = result.originNs;
    const toMs = (ns: string) => Number(BigInt(ns) - origin) / 1e6;

    const ttftErr: number[] = [];
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
    const p = (xs: number[]) => percentiles(abs(xs));
    const line = (name: string, xs: number[]) => {
      const q = p(xs);
      console.log(`  ${name.padEnd(44)} p50 ${fmt(q.p50)}  p99 ${fmt(q.p99)}  (n=${q.count})`);
    };
    console.log(
      `fidelity: ${LANES} lanes × 2 sessions, ${seconds} s, ${result.summary.counted} requests, ${result.summary.outputTokens} tokens`,
    );
    console.log(" |error| in ms, judge against the server's own write times (same monotonic clock):");
    line("TTFT error", ttftErr);
    line("ITL error (per chunk gap)", itlErr);
    line("chunk arrival lag (arrival − write)", arrivalLag);
    console.log(" |error| in ms against the programmed timings (includes the server's own timer slop):");
    line("TTFT vs programmed", ttftVsProgram);
    line("ITL vs programmed", itlVsProgram);
    line("server timer slop (write vs programmed)", serverTimerErr);
    console.log(
      `  tokens/s all-lanes-busy: judge ${fmt(judged, 2)}, server truth ${fmt(truthSpeed, 2)}, error ${fmt((100 * Math.abs(judged - truthSpeed)) / truthSpeed, 3)}%`,
    );
    console.log(
      `  client lateness (sent − scheduled) p99 ${fmt(result.summary.latenessMs.p99)} ms, max ${fmt(result.summary.latenessMs.max)} ms`,
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
