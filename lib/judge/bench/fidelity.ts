/**
 * The judge's fidelity benchmark:
 *   npx tsx lib/judge/bench/fidelity.ts [--seconds S] [--lanes 20,100] [--pin | --judge-cpus J --counter-cpus C
 *     --server-cpus S] [--skip-fidelity] [--skip-lateness] [--skip-ceiling] [--node-defaults]
 * 1. Fidelity, at each lane count: against a server streaming with programmed timings, after a warm-up wave as
 *    the judge plays one, how far the judge's TTFT, ITL and tokens/s are from what the server did (its socket reads
 *    and writes, on the same monotonic clock, in another process; see wire-server.ts) and from what it was
 *    programmed to do. TTFT's error splits into the request's transit (the judge's write to the server's read: the
 *    server's own wake-up, which its clock cannot see) and the first chunk's arrival lag (the judge's). The speed's
 *    truth is the protocol's busy speed, computed as the judge computes it, over the server's reads and writes; the
 *    same comparison with each token counted whole where it arrived shows why the judge spreads a chunk's tokens over
 *    its making.
 * 2. Lateness, at each lane count (lateness.ts): streams paced at 150 tokens/s, each chunk stamped with its send
 *    time; how late the judge's streamChat, the judge with its token counter, vLLM's request function
 *    (compare-client.py) and bare sockets see each chunk, and the judge's GC pauses that overlapped late chunks.
 * 3. The client's ceiling (ceiling.ts): SSE content events per second from a zero-cost server, with and without
 *    counting, beside the comparison client.
 * The judge runs under the pod agent's heap flags (run/node-flags.ts; `--node-defaults` leaves Node's own).
 * `--pin` puts the judge's process on CPU 2, its token counter's thread on 3 and the server on 4–5 (taskset; the
 * comparison client and the bare sockets run on the judge's CPU): the judge on one core, counting kept off it.
 * Every figure is printed beside its target; none is asserted.
 */
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { qwen3TokenizerDir } from "../../tokenizer/packaged-qwen3";
import { createJudgeAgent } from "../client/http-agent";
import { nsToMs } from "../clock";
import { watchGc } from "../run/gc-watch";
import { hasJudgeNodeFlags, JUDGE_NODE_FLAGS } from "../run/node-flags";
import { runPass } from "../run/run-pass";
import type { PassPlan } from "../sessions/plan";
import { allBusyIntervals, intervalsMs, spreadTokensIn } from "../speeds/speeds";
import { percentiles } from "../stats";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import { type ThreadedTokenCounter, threadedTokenCounter } from "../tokens/token-counter";
import { bareClientRun } from "./bare-client";
import { fmt, type Placement, parsePlacement, pin, pinJudge, startServer, takeLog } from "./bench-kit";
import { programmed } from "./bench-server";
import { BURST_TOKENS, ceilingSection } from "./ceiling";
import { gcOverlap, LATE_MS, latenessSection, matchStamps } from "./lateness";

const argv = process.argv.slice(2);
// the judge is measured as the pod agent runs it: under its heap flags (`--node-defaults`: under Node's own)
if (!argv.includes("--node-defaults") && !hasJudgeNodeFlags(process.execArgv)) {
  const child = spawnSync(process.execPath, [...JUDGE_NODE_FLAGS, ...process.execArgv, process.argv[1]!, ...argv], {
    stdio: "inherit",
  });
  process.exit(child.status ?? 1);
}
const flag = (name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const seconds = Number(flag("--seconds")) || 20;
const laneCounts = (flag("--lanes") ?? "20,100").split(",").map(Number);
if (laneCounts.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error(`--lanes takes whole numbers: ${flag("--lanes")}`);
const placement = parsePlacement(argv);

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
function busySpeeds(spans: Span[], lanes: number) {
  const intervals = allBusyIntervals(spans, lanes);
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

const abs = (xs: number[]) => xs.map(Math.abs);

async function fidelity(LANES: number, counter: ThreadedTokenCounter, place: Placement) {
  const { url, child } = await startServer(["programmed"], place.server);
  const dispatcher = createJudgeAgent();
  try {
    const pool = fixturePool({
      perFamily: Math.ceil((3 * LANES) / 2),
      turns: Math.ceil(seconds * 4) + 10,
      maxTokens: 256,
    });
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
    await takeLog(url, dispatcher, 0, 2 ** 32);
    const gc = watchGc();
    const result = await runPass(plan, options);
    // the full collection runPass asks for before its clock starts is not the pass's
    const gcPauses = gc.stop().filter((p) => p.startMs >= nsToMs(result.originNs));
    const bare = await bareClientRun(url, LANES, Math.min(seconds, 10), 2 ** 32);
    const log = await takeLog(url, dispatcher, 0, 2 ** 33);
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
    const truth = busySpeeds(serverSpans, LANES);
    const judged = result.summary.speed!;
    const judgeWhole = busySpeeds(
      result.records.filter((r) => r.counted).map((r) => ({ sentMs: r.sentMs, doneMs: r.doneMs, writes: r.chunkMs })),
      LANES,
    );
    const gcSeen = gcOverlap(
      matchStamps(
        log,
        result.records
          .filter((r) => r.counted)
          .map((r) => ({ seed: r.seed, arrivalsMs: r.chunkMs.map((t) => nsToMs(origin) + t) })),
      ),
      gcPauses,
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
      `fidelity: ${LANES} lanes × 2 sessions, ${seconds} s, ${result.summary.counted} requests, ${result.summary.outputTokens} tokens; ${cpus().length} cores, the truth server ${cpus().length >= 8 ? "spins" : "sleeps between reads"}`,
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
    const floor = busySpeeds(floorSpans, LANES);
    const floorTruth = busySpeeds(floorTruthSpans, LANES);
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
        gcPauses.reduce((a, p) => a + p.durationMs, 0),
        1,
      )} ms in all, longest ${fmt(Math.max(0, ...gcPauses.map((p) => p.durationMs)))} ms; of ${gcSeen.late} chunks more than ${LATE_MS} ms late, ${gcSeen.lateInGc} overlapped a pause${
        gcSeen.overlapping.length
          ? ` (those pauses, longest first: ${gcSeen.overlapping
              .slice(0, 6)
              .map((p) => `${p.kind} ${fmt(p.durationMs, 2)} ms`)
              .join(", ")})`
          : ""
      }`,
    );
    const ok = p(ttftErr).p99! < 1 && p(itlErr).p99! < 1 && Math.abs(judged - truth.spread) / truth.spread < 0.005;
    console.log(`  targets (TTFT/ITL p99 < 1 ms, tokens/s < 0.5%): ${ok ? "met" : "NOT met"}`);
  } finally {
    child.kill();
    await dispatcher.destroy();
  }
}

async function main() {
  const cores = cpus().length;
  pinJudge(placement);
  const counter = await threadedTokenCounter(qwen3TokenizerDir());
  if (placement.counter !== null) {
    if (counter.osThreadId === null) throw new Error("--pin needs the counter's thread id (Linux /proc)");
    pin(counter.osThreadId, placement.counter);
  }
  const where =
    placement.judge === null
      ? "unpinned"
      : `the judge's lanes on CPU ${placement.judge}, its other threads on ${placement.helpers ?? "the same"}, its token counter's thread on ${placement.counter ?? "the judge's"}, the server on ${placement.server ?? "any"}`;
  console.log(`node ${process.version} ${process.execArgv.join(" ")}, ${cores} cores; ${where}; ${seconds} s a run`);
  try {
    if (!argv.includes("--skip-fidelity")) for (const lanes of laneCounts) await fidelity(lanes, counter, placement);
    if (!argv.includes("--skip-lateness")) {
      const { url, child } = await startServer(["paced"], placement.server);
      const dispatcher = createJudgeAgent();
      try {
        console.log(
          "chunk-stamp lateness, ms (the client's arrival stamp − the server's send stamp, one monotonic clock), streams at 150 tokens/s:",
        );
        await latenessSection({ url, dispatcher, counter, laneCounts, seconds, judgeCpus: placement.judge });
      } finally {
        child.kill();
        await dispatcher.destroy();
      }
    }
    if (!argv.includes("--skip-ceiling")) {
      const { url, child } = await startServer(["burst", String(BURST_TOKENS)], placement.server);
      const dispatcher = createJudgeAgent();
      try {
        console.log("client ceiling with a zero-cost server (each reply written at once):");
        await ceilingSection({
          url,
          dispatcher,
          counter,
          placement,
          laneCounts: [1, ...laneCounts],
          seconds: Math.min(seconds, 5),
        });
      } finally {
        child.kill();
        await dispatcher.destroy();
      }
    }
  } finally {
    await counter.close();
  }
}

await main();
process.exit(0);
