/**
 * The gates' power against the simulated engine's parametric attacks (issue 17): per attack and strength, a pool of
 * replies sampled from the attacked engine as timed requests ask, scored with top-20 prompt_logprobs on a stock
 * engine, beside the stock engine's own pool (and, where the attack reaches the target's forward pass, fixed texts
 * and greedy probes on both); then each check's detection rate at the profile's sizes over draws of those pools, and
 * the weakest strength each check catches 95% of the time. `--families honest` measures the stock engine as its own
 * candidate: the false alarms. One family or strength a process (`--families top-k --top-k 10`) runs side by side
 * with others on a many-core host; `--from a.json,b.json --into REPORT` merges their `--out` files.
 * Usage: gate-power-args.ts USAGE, printed with any bad flag (exit 2).
 */
import { writeFile } from "node:fs/promises";
import { cpus } from "node:os";
import { formatReportFile, readCalibrationReport } from "@/lib/calibration/report-file";
import { currentProtocol, getTask } from "@/lib/protocol";
import { type AttackStrengths, type SimEngine, startSimEngine } from "@/lib/sim-engine";
import type { ReplyScore } from "../judge-evaluation";
import {
  estimatePower,
  type PairedValues,
  POWER_TARGET,
  type PowerLimits,
  type PowerSizes,
  poolFigures,
  powerLimits,
} from "../stats/gate-power";
import { type PowerCommand, type PowerRun, parsePowerArgs } from "./gate-power-args";
import { gatePowerEvidence, withGatePower } from "./gate-power-evidence";
import { familySpec } from "./gate-power-families";
import { type GatePowerFile, gatePowerFileSchema, type PowerMeasurement, readGatePowerFile } from "./gate-power-file";
import { formatThresholds, headerLine, POINT_HEADER, pointLine } from "./gate-power-format";
import { type CheckSet, checkAnswers, checkSet, paired, replyPool } from "./gate-power-pools";

/** Wall and CPU seconds of this process (the engines run in it) since a mark. */
function clock() {
  const wall = performance.now();
  const cpu = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(cpu);
    return { wall_seconds: (performance.now() - wall) / 1000, cpu_seconds: (used.user + used.system) / 1e6 };
  };
}

interface StockSide {
  replies: ReplyScore[];
  answers: { texts: number[][]; probes: number[][] } | null;
}

interface Measuring {
  run: PowerRun;
  scorer: SimEngine;
  stock: StockSide;
  set: CheckSet | null;
  sizes: PowerSizes;
  limits: PowerLimits;
}

/** One candidate engine (the stock engine, or under an attack) measured and judged on draws of its pools. */
async function measure(m: Measuring, strengths: AttackStrengths, forwardPass: boolean): Promise<PowerMeasurement> {
  const done = clock();
  const { run } = m;
  const engine = await startSimEngine({
    mode: "stock",
    ...strengths,
    simSpeed: run.simSpeed,
    maxNumSeqs: 8,
    servedName: m.scorer.servedName,
  });
  try {
    // every candidate takes the same seeds (seed + 1), the stock pool its own: the attacks' pools differ from the
    // honest candidate's by the attack alone, and no candidate reply shares a seed with a stock one
    const replies = await replyPool(engine, m.scorer, {
      count: run.replyPool,
      maxTokens: run.maxTokens,
      seed: run.seed + 1,
    });
    let checks: { texts: PairedValues[]; probes: PairedValues[] } | null = null;
    if (forwardPass && m.set && m.stock.answers) checks = paired(await checkAnswers(engine, m.set), m.stock.answers);
    const pools = { candidate: replies, stock: m.stock.replies, ...(checks ?? {}) };
    const power = estimatePower(pools, m.sizes, m.limits, { resamples: run.resamples, seed: run.seed });
    const figures = poolFigures(pools, m.limits, run.seed);
    const rates: PowerMeasurement["rates"] = {};
    for (const [check, r] of Object.entries(power.rates)) rates[check as keyof typeof rates] = r.rate;
    return {
      pool: {
        replies: replies.length,
        tokens: replies.reduce((a, r) => a + r.tokens, 0),
        texts: checks?.texts.length ?? 0,
        probes: checks?.probes.length ?? 0,
      },
      resampling: power.resampling,
      rates,
      figures: {
        likelihood: figures.likelihood && { gap: figures.likelihood.gap, se: figures.likelihood.se },
        argmax: figures.argmax && { gap: figures.argmax.gap, se: figures.argmax.se },
        audit_p: figures.auditP,
        fidelity: figures.fidelity,
        greedy: figures.greedy,
      },
      ...done(),
    };
  } finally {
    await engine.close();
  }
}

async function runPower(run: PowerRun): Promise<GatePowerFile> {
  const total = clock();
  const protocol = currentProtocol();
  const task = getTask(run.task);
  const limits = powerLimits(task, protocol.gates.z);
  const sizes = {
    replies: run.profile.likelihoodReplies,
    texts: run.profile.fidelityTexts,
    probes: run.profile.greedyProbes,
  };
  const forward = run.honest || run.sweeps.some((s) => familySpec(s.family).forwardPass);
  const header = {
    task: task.id,
    profile: run.profile.name,
    sizes,
    resamples: run.resamples,
    target: POWER_TARGET,
  };
  console.log(headerLine(header));
  console.log(
    `pools: ${run.replyPool} replies an engine (max_tokens ${run.maxTokens})${forward ? `, ${run.textPool} fixed texts and ${run.probePool} greedy probes where the target's forward pass is attacked` : ""}; seed ${run.seed}, SIM_SPEED ${run.simSpeed}`,
  );
  if (run.replyPool < sizes.replies || (forward && Math.min(run.textPool, run.probePool) < sizes.texts))
    console.log(
      "warning: a pool smaller than a draw is bootstrapped, and its rates then read the pools' own difference more than the engines': for a quick look at the shape only",
    );
  const scorer = await startSimEngine({ mode: "stock", simSpeed: run.simSpeed, maxNumSeqs: 8, servedName: task.id });
  try {
    const stockDone = clock();
    const replies = await replyPool(scorer, scorer, { count: run.replyPool, maxTokens: run.maxTokens, seed: run.seed });
    const set = forward
      ? checkSet({
          seed: run.seed,
          texts: run.textPool,
          probes: run.probePool,
          greedyMaxTokens: run.profile.greedyMaxTokens,
          model: task.id,
        })
      : null;
    const stock: StockSide = { replies, answers: set ? await checkAnswers(scorer, set) : null };
    const tokens = replies.reduce((a, r) => a + r.tokens, 0);
    const stockFigures = {
      replies: replies.length,
      tokens,
      digest: `${tokens}:${replies.reduce((a, r) => a + r.notFirstChoice, 0)}:${replies.reduce((a, r) => a + r.logprobSum, 0).toFixed(6)}`,
      ...stockDone(),
    };
    console.log(
      `stock pool: ${replies.length} replies, ${tokens} tokens (${stockFigures.wall_seconds.toFixed(0)} s, ${stockFigures.cpu_seconds.toFixed(0)} s of CPU)`,
    );
    console.log(POINT_HEADER);
    const m: Measuring = { run, scorer, stock, set, sizes, limits };
    const honest = run.honest ? await measure(m, {}, true) : null;
    if (honest) console.log(pointLine("honest (stock as candidate)", honest));
    const points: GatePowerFile["points"] = [];
    for (const { family, strengths } of run.sweeps) {
      const spec = familySpec(family);
      for (const strength of strengths) {
        const point = await measure(m, spec.options(strength), spec.forwardPass);
        points.push({ family, strength, ...point });
        console.log(pointLine(`${family} ${strength}`, point));
      }
    }
    return gatePowerFileSchema.parse({
      kind: "speculatorarena.gate-power",
      ...header,
      seed: run.seed,
      sim_speed: run.simSpeed,
      max_tokens: run.maxTokens,
      cores: cpus().length,
      limits: {
        z: limits.z,
        likelihood_bound: limits.likelihoodBound,
        argmax_bound: limits.argmaxBound,
        fidelity_ceiling: limits.fidelityCeiling,
        greedy_floor: limits.greedyFloor,
        audit_alpha: limits.auditAlpha,
        outside_tolerance: limits.outsideTolerance,
      },
      stock: stockFigures,
      honest,
      points,
      wall_seconds: total().wall_seconds,
    });
  } finally {
    await scorer.close();
  }
}

/** Puts runs' evidence into a calibration report as its `gate_power`, validated as the protocol loads it. */
async function intoReport(files: readonly GatePowerFile[], report: string): Promise<void> {
  const merged = withGatePower(await readCalibrationReport(report), gatePowerEvidence(files));
  await writeFile(report, `${JSON.stringify(merged, null, 2)}\n`);
  await formatReportFile(report);
  console.error(`the gates' power is in ${report}`);
}

async function main(argv: readonly string[]): Promise<void> {
  let command: PowerCommand;
  try {
    command = parsePowerArgs(argv);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(2);
  }
  if (command.kind === "merge") {
    const files = await Promise.all(command.from.map(readGatePowerFile));
    console.log(formatThresholds(gatePowerEvidence(files)));
    if (command.into) await intoReport(files, command.into);
    return;
  }
  const file = await runPower(command.run);
  console.log(formatThresholds(gatePowerEvidence([file])));
  console.log(`${file.wall_seconds.toFixed(0)} s in all`);
  if (command.run.out) await writeFile(command.run.out, `${JSON.stringify(file, null, 2)}\n`);
  if (command.run.into) await intoReport([file], command.run.into);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
