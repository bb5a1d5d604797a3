/**
 * The exact sampling audit's power and false alarms against the simulated engine's modes: per mode, `runs` seeded
 * runs of `replies` replies sampled as timed requests ask, scored on the stock engine with top-20 prompt_logprobs;
 * prints how often each mode is flagged (false alarms for the honest modes, power for the attacks), the median
 * p-value and outside share.
 * Usage: npx tsx lib/gates/bench/sampling-audit.ts [runs=10] [replies=128] [maxTokens=160] [modes=all, comma-separated]
 */
import { z } from "zod";
import { HONEST_MODES, type Mode, startSimEngine } from "@/lib/sim-engine";
import { AUDIT_ALPHA, OUTSIDE_TOLERANCE, type SamplingAuditResult } from "../stats/sampling-audit";
import { auditMode } from "../testing/audit-modes";

const [runs, replies, maxTokens] = z
  .tuple([
    z.coerce.number().int().positive().default(10),
    z.coerce.number().int().positive().default(128),
    z.coerce.number().int().positive().default(160),
  ])
  .parse([process.argv[2], process.argv[3], process.argv[4]]);
const ALL: Mode[] = [...HONEST_MODES, "greedy", "other-sampling", "loose-accept", "quantized"];
const modes = process.argv[5] ? z.array(z.enum(ALL as [Mode, ...Mode[]])).parse(process.argv[5].split(",")) : ALL;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? Number.NaN : s[Math.floor((s.length - 1) / 2)]!;
};

console.log(
  `sampling audit: ${runs} runs × ${replies} replies (max_tokens ${maxTokens}) per mode; flagged when the Anderson–Darling p < ${AUDIT_ALPHA} or more than ${OUTSIDE_TOLERANCE} of tokens fall outside the target's support`,
);
console.log("mode            kind     flagged   rate   median p   median outside  tokens/run  informative/run");
const scorer = await startSimEngine({ mode: "stock", simSpeed: 1000, maxNumSeqs: 8 });
let honestRuns = 0;
let honestAlarms = 0;
try {
  for (const mode of modes) {
    const results: SamplingAuditResult[] = [];
    for (let r = 0; r < runs; r++) results.push(await auditMode(scorer, mode, { replies, maxTokens, seed: 1000 + r }));
    const flagged = results.filter((a) => !a.consistent).length;
    const honest = (HONEST_MODES as readonly string[]).includes(mode);
    if (honest) {
      honestRuns += runs;
      honestAlarms += flagged;
    }
    console.log(
      `${mode.padEnd(15)} ${(honest ? "honest" : "attack").padEnd(7)} ${`${flagged}/${runs}`.padStart(8)} ${(flagged / runs).toFixed(2).padStart(6)} ${median(
        results.map((a) => a.p_value),
      )
        .toExponential(2)
        .padStart(10)} ${median(results.map((a) => a.outside_share))
        .toFixed(4)
        .padStart(16)} ${Math.round(median(results.map((a) => a.tokens)))
        .toString()
        .padStart(11)} ${Math.round(median(results.map((a) => a.informative)))
        .toString()
        .padStart(16)}`,
    );
  }
} finally {
  await scorer.close();
}
if (honestRuns > 0)
  console.log(
    `false-alarm rate over honest runs: ${honestAlarms}/${honestRuns} = ${(honestAlarms / honestRuns).toFixed(3)} (level ${AUDIT_ALPHA})`,
  );
