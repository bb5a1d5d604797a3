import { loadPool } from "@/lib/judge/pool/load";
import { DEV_POOL_PATH } from "@/lib/judge/pool/paths";
import { fixedTexts, greedyProbes } from "@/lib/judge/pool/probes";
import type { SimEngine } from "@/lib/sim-engine";
import type { ConversationForCheck } from "../driver/check-context";
import type { CheckRun } from "../driver/check-run";
import { type ProbePrompt, sendGreedyProbes } from "../driver/greedy-probes";
import { scoreFixedTexts, scoreSampledReplies } from "../driver/score-texts";
import type { ReplyScore } from "../judge-evaluation";
import type { PairedValues } from "../stats/gate-power";
import { endpointOf, sampleReplies, template, tokenizer } from "../testing/audit-modes";

/** The fixed texts and greedy probes every engine of a run is measured on: drawn once from the dev pool. */
export interface CheckSet {
  texts: ConversationForCheck[];
  probes: ProbePrompt[];
  greedyMaxTokens: number;
}

/** `texts` fixed texts and `probes` greedy probes of the shipped dev pool, deterministic from the seed (as a pod draws them). */
export function checkSet(options: {
  seed: number;
  texts: number;
  probes: number;
  greedyMaxTokens: number;
  model: string;
}): CheckSet {
  const pool = loadPool(DEV_POOL_PATH);
  const seed = `gate-power-${options.seed}`;
  return {
    texts: fixedTexts(pool, { seed, count: options.texts }).map((t) => ({
      messages: t.messages,
      tools: t.tools,
      reply: t.reply,
    })),
    probes: greedyProbes(pool, {
      seed,
      count: options.probes,
      maxTokens: options.greedyMaxTokens,
      model: options.model,
    }).map((p) => ({ messages: p.messages, tools: p.tools, seed: p.body.seed, body: p.body })),
    greedyMaxTokens: options.greedyMaxTokens,
  };
}

/** Every value of a check run, or an error naming what went unanswered: a pool with holes would bias every draw. */
function answered<T>(run: CheckRun<T>, what: string): T[] {
  if (run.unanswered > 0) throw new Error(`${run.unanswered} ${what} went unanswered: ${run.errors[0]?.message}`);
  return run.values as T[];
}

/**
 * `count` replies sampled from `engine` as timed requests ask (the protocol's sampling, a seed each from `seed`),
 * scored under the target by `scorer` with the sampling audit's top-20 requests: a pool of ReplyScores.
 */
export async function replyPool(
  engine: SimEngine,
  scorer: SimEngine,
  options: { count: number; maxTokens: number; seed: number },
): Promise<ReplyScore[]> {
  const replies = await sampleReplies(engine, options.count, options.maxTokens, options.seed);
  const scored = await scoreSampledReplies(endpointOf(scorer), replies, { tokenizer, template, concurrency: 4 });
  return answered(scored, "scorings of sampled replies");
}

/** One engine's answers to the check set: each fixed text's log-probabilities, each probe's greedy reply in ids. */
export async function checkAnswers(
  engine: SimEngine,
  set: CheckSet,
): Promise<{ texts: number[][]; probes: number[][] }> {
  const endpoint = endpointOf(engine);
  const texts = answered(await scoreFixedTexts(endpoint, set.texts, { tokenizer, template }), "fixed texts");
  const probes = answered(
    await sendGreedyProbes(endpoint, set.probes, { tokenizer, maxTokens: set.greedyMaxTokens }),
    "greedy probes",
  );
  return { texts, probes };
}

/** The candidate's answers beside the stock engine's, text by text and probe by probe. */
export function paired(
  candidate: { texts: number[][]; probes: number[][] },
  stock: { texts: number[][]; probes: number[][] },
): { texts: PairedValues[]; probes: PairedValues[] } {
  return {
    texts: candidate.texts.map((c, i) => ({ candidate: c, stock: stock.texts[i]! })),
    probes: candidate.probes.map((c, i) => ({ candidate: c, stock: stock.probes[i]! })),
  };
}
