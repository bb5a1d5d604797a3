export { type WorkloadCard, workloadCard } from "./card/workload-card";
export { createJudgeAgent } from "./client/http-agent";
export { type TimedRequestBody, type TimedRequestInput, timedRequestBody } from "./client/request-body";
export { type SseEvent, SseParser } from "./client/sse-parser";
export { type StreamOutcome, streamChat } from "./client/stream-chat";
export type { JudgeEvent, OnEvent } from "./events";
export {
  type Acceptance,
  type AcceptanceCounts,
  acceptanceBetween,
  acceptanceCredibility,
  type Credibility,
  scrapeMetrics,
} from "./metrics/acceptance";
export { parsePrometheus, type Sample } from "./metrics/prometheus";
export { type PassRatio, pairPasses, type WorkloadRatio } from "./pairing";
export { buildPool, isHeldOut, TEST_SHARE } from "./pool/build-pool";
export { loadPool, parsePool, serializePool } from "./pool/load";
export { DEV_POOL_PATH } from "./pool/paths";
export { type FixedText, fixedTexts, type GreedyProbe, greedyProbes } from "./pool/probes";
export type { App, Family, Pool, Session, Turn } from "./pool/schema";
export type { RequestRecord } from "./records";
export { isCounted } from "./records";
export { expandMessages, type RecordsReport, recordsReport } from "./report";
export { baseUrl, type PassResult, type PassRunOptions, runPass } from "./run/run-pass";
export {
  planFor,
  resolveProfile,
  runWorkload,
  runWorkloadPass,
  type WorkloadOptions,
  type WorkloadResult,
} from "./run/run-workload";
export {
  type EvaluationPlan,
  type PassPlan,
  passSalt,
  planEvaluation,
  requestSeed,
  saltedSystemPrompt,
} from "./sessions/plan";
export {
  allBusyIntervals,
  allLanesBusySpeed,
  cacheHit,
  chunkGaps,
  itlPerToken,
  requestTimeSpeed,
  tpotMs,
  ttftMs,
} from "./speeds/speeds";
export { type PassSummary, summarizePass } from "./speeds/summary";
export { median, type Percentiles, percentile, percentiles } from "./stats";
export { openTargetTokens, type TargetTokens } from "./tokens/target-tokens";
export {
  createTokenCounter,
  inlineTokenCounter,
  type TokenCounter,
  threadedTokenCounter,
} from "./tokens/token-counter";
export { cutStart, needsCut, promptEstimate, type WindowRule, windowRule } from "./window";
