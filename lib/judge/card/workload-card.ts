import { z } from "zod";
import { distributionZ } from "./distribution";
import cardJson from "./workload-card.v1.json";

/**
 * The workload card: the trace-derived distributions the pool's sessions follow, published with the protocol.
 * `derive-card.ts` computes it from /work/shared/data (see `method`); a change is a new version.
 */
export const workloadCardZ = z.object({
  version: z.string(),
  protocolVersion: z.string(),
  derivedAt: z.string(),
  method: z.array(z.string()),
  mix: z.object({ agentShare: z.number().min(0).max(1), why: z.string() }),
  replyBudget: z.object({
    factor: z.number().positive(),
    roundTo: z.number().int().positive(),
    min: z.number().int().positive(),
    max: z.number().int().positive(),
    why: z.string(),
  }),
  agent: z.object({
    turnsPerSession: distributionZ,
    toolDelaySeconds: distributionZ,
    toolResultTokens: distributionZ,
    replyTokens: distributionZ,
    promptTokensPerCall: distributionZ,
    firstPromptTokens: distributionZ,
  }),
  chat: z.object({
    depth: distributionZ,
    userTurnTokens: distributionZ,
    replyTokens: distributionZ,
    contextTokens: distributionZ,
    thinkSeconds: distributionZ,
    sharedFirstBlockShare: z.number().min(0).max(1),
  }),
  targets: z.object({
    chatPrefixReuseTokenWeighted: z.number().min(0).max(1),
    chatPrefixReusePerRequest: z.number().min(0).max(1),
    why: z.string(),
  }),
});
export type WorkloadCard = z.infer<typeof workloadCardZ>;

let cached: WorkloadCard | undefined;
export function workloadCard(): WorkloadCard {
  cached ??= workloadCardZ.parse(cardJson);
  return cached;
}
