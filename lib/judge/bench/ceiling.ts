/**
 * The fidelity benchmark's ceiling section: SSE content events per second the judge takes in from a zero-cost
 * server (each reply of `BURST_TOKENS` events written at once), with its `streamChat` alone and as it runs a pass
 * with its token counter, beside the comparison client. Each rate is read over the run's steady middle (from its
 * first second to half a second before its end), so a pass's preparations and its summary stay out of it. Pinned
 * (`--pin`), the lanes' thread has one core and the wall-clock rate is that core's; unpinned, the rate per
 * CPU-second of the lanes' thread stands for it.
 */
import type { Dispatcher } from "undici";
import { sleep } from "../clock";
import { runPass } from "../run/run-pass";
import type { PassPlan } from "../sessions/plan";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import type { ThreadedTokenCounter, TokenCounter } from "../tokens/token-counter";
import { against, fmt, type Placement, threadCpuMs } from "./bench-kit";
import { runCompareClient, streamLanes } from "./lateness";

export const BURST_TOKENS = 4000;

interface Rate {
  events: number;
  wallSeconds: number;
  /** CPU-seconds of the lanes' (main) thread and of the counter's thread; null where /proc has no schedstat. */
  lanesCpuSeconds: number | null;
  counterCpuSeconds: number | null;
}

const perSecond = (events: number, seconds: number | null) => (seconds ? events / seconds : null);

/** Runs `run` for `seconds` and reads its rate between its first second and half a second before its end. */
async function steady(
  seconds: number,
  counter: ThreadedTokenCounter,
  tally: { events: number },
  run: () => Promise<unknown>,
): Promise<Rate> {
  const sample = () => ({
    events: tally.events,
    at: performance.now(),
    lanes: threadCpuMs(process.pid),
    counter: threadCpuMs(counter.osThreadId),
  });
  const running = run();
  await sleep(1000);
  const a = sample();
  await sleep((seconds - 1.5) * 1000);
  const b = sample();
  await running;
  const cpu = (x: number | null, y: number | null) => (x === null || y === null ? null : (y - x) / 1000);
  return {
    events: b.events - a.events,
    wallSeconds: (b.at - a.at) / 1000,
    lanesCpuSeconds: cpu(a.lanes, b.lanes),
    counterCpuSeconds: cpu(a.counter, b.counter),
  };
}

/** The counter, with every content event of every reply tallied as the lanes hand it over. */
function tallied(counter: TokenCounter, tally: { events: number }): TokenCounter {
  return {
    ...counter,
    streaming() {
      const counting = counter.streaming();
      return {
        append(piece) {
          tally.events++;
          counting.append(piece);
        },
        finish: (ends) => counting.finish(ends),
      };
    },
  };
}

export async function ceilingSection(options: {
  url: string;
  dispatcher: Dispatcher;
  counter: ThreadedTokenCounter;
  placement: Placement;
  laneCounts: number[];
  seconds: number;
}) {
  const { url, dispatcher, counter } = options;
  const pinned = options.placement.judge !== null;
  const pool = fixturePool({ perFamily: 50, turns: 400, maxTokens: 100_000 });
  let best = { plain: 0, counted: 0 };
  let seed = 2 ** 40;
  const rate = (r: Rate) => (pinned ? perSecond(r.events, r.wallSeconds) : perSecond(r.events, r.lanesCpuSeconds));
  for (const lanes of options.laneCounts) {
    await streamLanes(url, dispatcher, lanes, 0.5, seed);
    seed += 2 ** 24;
    const plainTally = { events: 0 };
    const plain = await steady(options.seconds, counter, plainTally, () =>
      streamLanes(url, dispatcher, lanes, options.seconds, seed, plainTally),
    );
    seed += 2 ** 24;
    const queues = Array.from({ length: lanes }, (_, i) => [pool.sessions[i]!]);
    const plan: PassPlan = { workload: "busy", pass: 0, lanes, interleave: 1, salt: `ceiling-${lanes}`, queues };
    const countedTally = { events: 0 };
    const passOptions = {
      url,
      servedName: "bench",
      task: "qwen3-8b" as const,
      profile: testProfile({
        passSeconds: { solo: options.seconds, team: options.seconds, busy: options.seconds },
        maxTokensCap: null,
      }),
      pool,
      evaluationSeed: "ceiling",
      dispatcher,
      counter: tallied(counter, countedTally),
      thinkScale: 0,
    };
    // the pool's turns are counted once, before any pass's clock starts
    await runPass({ ...plan, pass: "warmup" }, passOptions);
    const counted = await steady(options.seconds, counter, countedTally, () => runPass(plan, passOptions));
    const compare = await runCompareClient(url, lanes, options.seconds, seed, options.placement.judge);
    seed += 2 ** 24;
    best = { plain: Math.max(best.plain, rate(plain) ?? 0), counted: Math.max(best.counted, rate(counted) ?? 0) };
    const line = (name: string, r: Rate) =>
      `    ${name.padEnd(34)} ${fmt(perSecond(r.events, r.wallSeconds), 0).padStart(9)} events/s wall, ${fmt(perSecond(r.events, r.lanesCpuSeconds), 0).padStart(9)} per CPU-second of the lanes' thread${r.counterCpuSeconds !== null && name.includes("counter") ? `; the counter's thread ${fmt(r.counterCpuSeconds && (1e6 * r.counterCpuSeconds) / r.events, 2)} µs per event` : ""}`;
    console.log(`  ${lanes} lanes, replies of ${BURST_TOKENS} events:`);
    console.log(line("the judge's streamChat", plain));
    console.log(line("the judge with its token counter", counted));
    if (compare)
      console.log(
        `    ${`comparison: ${compare.client}`.slice(0, 34).padEnd(34)} ${fmt(compare.events / compare.seconds, 0).padStart(9)} events/s wall (${compare.errors} errors)`,
      );
  }
  const basis = pinned ? "wall-clock, the lanes' thread on one core" : "per CPU-second of the lanes' thread";
  console.log(`  target, the judge's ceiling (${basis}, best lane count):`);
  console.log(`    without counting ${against(best.plain, 250_000, "≥", " events/s", 0)}`);
  console.log(`    with counting    ${against(best.counted, 150_000, "≥", " events/s", 0)}`);
}
