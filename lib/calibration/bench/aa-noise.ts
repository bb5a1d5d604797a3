/**
 * Where the A/A speed noise comes from: pairs of one timed pass each, the same sessions, seeds and order played on
 * one fresh stock engine and then on another, as an evaluation pairs the candidate's pass with the stock engine's.
 * Pairs run side by side (`--concurrency`); each prints its two speeds, their ratio and what the pass held, then the
 * spread of the ratios. Run it on a quiet many-core host and on two busy cores with the same seeds: what differs is
 * the machine's part of the noise.
 *
 *   npx tsx lib/calibration/bench/aa-noise.ts --workload team --pairs 6 [--profile full] [--concurrency 6] [--seed S]
 */
import { randomBytes } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { cpus, loadavg } from "node:os";
import { z } from "zod";
import { createJudgeAgent } from "../../judge/client/http-agent";
import { loadPool } from "../../judge/pool/load";
import { DEV_POOL_PATH } from "../../judge/pool/paths";
import type { PassResult } from "../../judge/run/run-pass";
import { planFor, runWorkloadPass } from "../../judge/run/run-workload";
import { createTokenCounter } from "../../judge/tokens/token-counter";
import { getProfile, getTask, WORKLOAD_IDS } from "../../protocol";
import { qwen3TokenizerDir } from "../../tokenizer/packaged-qwen3";
import { flagPairs } from "../flag-pairs";
import { startSimStock } from "../sim-stock";

const argsSchema = z
  .object({
    workload: z.enum(WORKLOAD_IDS).default("team"),
    pairs: z.coerce.number().int().min(1).max(32).default(4),
    profile: z.string().default("full"),
    concurrency: z.coerce.number().int().min(1).max(32).default(4),
    "sim-speed": z.coerce.number().positive().default(1),
    seed: z.string().min(1).optional(),
    out: z.string().min(1).optional(),
  })
  .strict();

const args = argsSchema.parse(
  flagPairs(process.argv.slice(2), "usage: see the head of lib/calibration/bench/aa-noise.ts"),
);
const task = getTask("qwen3-8b");
const profile = getProfile(args.profile);
if (!profile) throw new Error(`unknown profile ${args.profile}`);
const seed = args.seed ?? randomBytes(6).toString("hex");
const pool = loadPool(DEV_POOL_PATH);
const counter = await createTokenCounter(qwen3TokenizerDir());
const dispatcher = createJudgeAgent();

async function playOn(pairSeed: string): Promise<PassResult> {
  const engine = await startSimStock(task.id, profile!.name, args["sim-speed"]);
  try {
    const options = {
      url: engine.url,
      servedName: task.id,
      task: task.id,
      workload: args.workload,
      profile: profile!.name,
      pool,
      evaluationSeed: pairSeed,
      plan: planFor({ pool, evaluationSeed: pairSeed, task: task.id, profile: profile!.name }),
      dispatcher,
      counter,
    };
    await runWorkloadPass(options, "warmup");
    return await runWorkloadPass(options, 0);
  } finally {
    await engine.stop();
  }
}

const view = (p: PassResult) => ({
  speed: p.summary.speed,
  requests: p.summary.requests,
  counted: p.summary.counted,
  output_tokens: p.summary.outputTokens,
  all_busy_seconds: p.summary.allBusySeconds,
  cache_hit: p.summary.cacheHit.tokenWeighted,
  judge_lateness_p99_ms: p.summary.latenessMs.p99,
  ttft_p50_ms: p.summary.ttftMs.p50,
  tpot_p50_ms: p.summary.tpotMs.p50,
});

console.error(
  `A/A noise: ${args.pairs} pair(s) of one ${args.workload} pass under ${profile.name}, ${args.concurrency} at once, ${cpus().length} cores, SIM_SPEED ${args["sim-speed"]}, seed ${seed}`,
);
const rows: {
  pair: number;
  seed: string;
  a: ReturnType<typeof view>;
  b: ReturnType<typeof view>;
  ratio: number | null;
}[] = [];
const loads: number[] = [];
const sampler = setInterval(() => loads.push(loadavg()[0]!), 5_000);
let next = 0;
const worker = async () => {
  while (next < args.pairs) {
    const pair = next++;
    const pairSeed = `${seed}-${pair}`;
    const a = view(await playOn(pairSeed));
    const b = view(await playOn(pairSeed));
    const ratio = a.speed && b.speed ? b.speed / a.speed : null;
    rows.push({ pair, seed: pairSeed, a, b, ratio });
    console.error(
      `pair ${pair}: ${a.speed?.toFixed(1)} → ${b.speed?.toFixed(1)} tokens/s, ratio ${ratio?.toFixed(4)}; requests ${a.requests}/${b.requests}, all busy ${a.all_busy_seconds?.toFixed(1)}/${b.all_busy_seconds?.toFixed(1)} s`,
    );
  }
};
try {
  await Promise.all(Array.from({ length: Math.min(args.concurrency, args.pairs) }, worker));
} finally {
  clearInterval(sampler);
  await counter.close();
  await dispatcher.close();
}
rows.sort((x, y) => x.pair - y.pair);
const errors = rows.flatMap((r) => (r.ratio === null ? [] : [Math.abs(r.ratio - 1)]));
const meanError = errors.reduce((a, b) => a + b, 0) / Math.max(1, errors.length);
const maxError = Math.max(0, ...errors);
const meanLoad = loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length);
console.log(`pair  speed A  speed B  ratio   |r-1|   requests  all-busy s   output tokens`);
for (const r of rows)
  console.log(
    `${String(r.pair).padEnd(4)}  ${r.a.speed?.toFixed(1).padStart(7)}  ${r.b.speed?.toFixed(1).padStart(7)}  ${r.ratio?.toFixed(4)}  ${r.ratio === null ? "—" : `${(Math.abs(r.ratio - 1) * 100).toFixed(2)}%`.padStart(6)}  ${r.a.requests}/${r.b.requests}  ${r.a.all_busy_seconds?.toFixed(1)}/${r.b.all_busy_seconds?.toFixed(1)}  ${r.a.output_tokens}/${r.b.output_tokens}`,
  );
console.log(
  `per-pass A/A error: ${(meanError * 100).toFixed(2)}% mean, ${(maxError * 100).toFixed(2)}% max over ${errors.length} pair(s); load average ${meanLoad.toFixed(1)} on ${cpus().length} cores`,
);
if (args.out)
  await writeFile(
    args.out,
    `${JSON.stringify({ workload: args.workload, profile: profile.name, seed, cores: cpus().length, mean_load: meanLoad, rows }, null, 2)}\n`,
  );
