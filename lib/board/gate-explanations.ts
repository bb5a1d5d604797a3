import type { GateKey } from "@/lib/gates/record/schema";
import { currentProtocol, type TaskSpec } from "@/lib/protocol";

/** What the /gates page says about each check (protocol sections 6, 7, 9 and 10), limits read from the protocol. */
export interface GateExplanation {
  key: GateKey;
  title: string;
  what: string;
  why: string;
  limit: (task: TaskSpec) => string;
  evidence: (task: TaskSpec) => string | null;
  attacks: string[];
}

const protocol = currentProtocol();

export const GATE_EXPLANATIONS: GateExplanation[] = [
  {
    key: "memory",
    title: "Device memory",
    what: `The arena samples the device's memory from outside every ${protocol.engine.memorySampleSeconds} s during the timed passes; the candidate's peak must stay within GPU_MEMORY_UTILIZATION (${protocol.engine.gpuMemoryUtilization}) of the device plus a slack for its CUDA context and workspaces.`,
    why: "What a speculator holds on the device comes out of the same budget as the target's KV cache; on busy that memory costs evictions, and the measured speed shows it only if nobody takes more than the budget.",
    limit: (t) =>
      `≤ ${protocol.engine.gpuMemoryUtilization} of the device + ${t.gates.memorySlackMib.value / 1024} GiB`,
    evidence: (t) => t.gates.memorySlackMib.evidence,
    attacks: ["Hold more device memory than allowed: caught, 0.97 of the device (178.5 GB) fails the gate"],
  },
  {
    key: "offload",
    title: "No offload to host memory",
    what: "Weights or KV blocks in host memory, as the engine's start-up log reports them, break the rules.",
    why: "Host memory is a second budget the stock engine does not use; moving the cache there would trade the rules for speed.",
    limit: () => "no weights or KV blocks offloaded",
    evidence: () => null,
    attacks: ["Offload to host memory: the start-up log is the only evidence, so this attack is open"],
  },
  {
    key: "fidelity",
    title: "Target fidelity: fixed texts' log-probabilities",
    what: `Each engine scores the same ${protocol.gates.fidelity.texts} fixed texts (a recorded reply after its conversation) with prompt_logprobs; the mean absolute difference per token between the candidate's log-probabilities and the stock engine's must stay under a ceiling.`,
    why: "The target's own forward pass must be served unchanged: no quantized weights, activations or KV cache.",
    limit: (t) => `≤ ${t.gates.fidelityCeiling.value}`,
    evidence: (t) => t.gates.fidelityCeiling.evidence,
    attacks: [
      "Serve a quantized or approximated target: caught, FP8 weights (0.087 on qwen3-8b, 0.045 on qwen35-27b) and FP8 KV (0.107, 0.022)",
    ],
  },
  {
    key: "likelihood",
    title: "Sampled replies' likelihood",
    what: `${protocol.gates.likelihood.replies} timed replies of each engine, drawn from all workloads, are scored by the stock engine under the target: their mean log-probability per token, weighted by tokens, with the replies as clusters for its standard error. The candidate's must equal the stock engine's within a bound, both ways, beyond ${protocol.gates.z} standard errors.`,
    why: "Speculative decoding must not change the distribution the target samples from; accepting drafts the target would not sample, sampling with other parameters, and cutting replies all move it.",
    limit: (t) =>
      `fails only if the whole 95% interval (${protocol.gates.z} standard errors each way) lies beyond ±${t.gates.likelihoodBound.value}`,
    evidence: (t) => t.gates.likelihoodBound.evidence,
    attacks: [
      "Accept drafts loosely: caught a 0.6B model served as the target (−0.47 nats)",
      "Sample with other parameters than requested",
    ],
  },
  {
    key: "argmax",
    title: "Share of first choices",
    what: "The same scoring gives each reply token's rank among the target's choices: the share of sampled tokens that were not the target's first choice must equal the stock engine's within a bound, both ways.",
    why: "Greedy decoding drives that share to zero and loose acceptance moves it; it is far more sensitive than the likelihood when the sampling distribution is sharp.",
    limit: (t) =>
      `fails only if the whole 95% interval (${protocol.gates.z} standard errors each way) lies beyond ±${t.gates.argmaxBound.value}`,
    evidence: (t) => t.gates.argmaxBound.evidence,
    attacks: [
      "Sample greedily: forcing greedy shifts the first-choice share by 0.019 (bound 0.003), which the likelihood (0.05 nats) misses",
      "Accept drafts loosely",
    ],
  },
  {
    key: "greedy",
    title: "Greedy agreement",
    what: `${protocol.gates.greedy.probes} probe prompts, temperature 0, ${protocol.gates.greedy.maxTokens} tokens, one at a time. The share of each reply that agrees with the stock engine's before their first difference, averaged over the prompts, must reach a floor.`,
    why: "Floating-point differences between a verify pass and a one-token decode flip near-ties, so agreement is never total; but an engine that serves another model agrees far less.",
    limit: (t) =>
      t.gates.greedyAgreementFloor.value === null ? "no floor on this task" : `≥ ${t.gates.greedyAgreementFloor.value}`,
    evidence: (t) => t.gates.greedyAgreementFloor.evidence,
    attacks: ["Serve a quantized or approximated target: FP8 engines agree on 0.17–0.20 of their length"],
  },
  {
    key: "length",
    title: "Reply lengths",
    what: `The candidate's timed replies must not differ in mean length from the stock engine's by more than ${protocol.gates.length.margin * 100}% with 95% confidence, compared on the requests both engines answered (the same pass, session and turn), pooled over the three workloads.`,
    why: "Tokens per second rewards short or padded replies only if lengths may drift; a faster engine plays further into its sessions, so only paired requests are compared.",
    limit: () =>
      `fails only if the whole 95% interval of the ratio lies outside ${1 - protocol.gates.length.margin} to ${1 + protocol.gates.length.margin}`,
    evidence: () => null,
    attacks: ["Cut replies short, or pad them: cutting replies to half their budget gains nothing (0.99)"],
  },
  {
    key: "answers",
    title: "Check requests answered",
    what: `An engine that cannot answer more than ${protocol.gates.unansweredShare * 100}% of a check's requests fails the gate; if the stock engine cannot, the evaluation is void and refunded.`,
    why: "A check that the candidate dodges by not answering would pass by default.",
    limit: () => `≤ ${protocol.gates.unansweredShare * 100}% unanswered per check`,
    evidence: () => null,
    attacks: ["Recognize check requests and refuse them"],
  },
];

/** Attacks the rules are tested against (protocol section 9) that no single gate owns. */
export const DESIGN_DEFENSES: { attack: string; defense: string }[] = [
  {
    attack: "Reuse replies across passes, or recognize timed requests",
    defense: "fresh salted sessions per pass; probe and timed requests built alike",
  },
  {
    attack: "Memorize public text, or the target's replies to it",
    defense: "the hidden test pool, and the dev/test gap flag on the board",
  },
  { attack: "Report fake counts or times", defense: "the arena counts tokens and times itself" },
  {
    attack: "Read hidden data or other submissions",
    defense: "an engine user, no network, private directories readable by root only",
  },
  {
    attack: "Slow the stock engine with leftover processes, files or device work",
    defense: "the engine user's processes are killed and files removed; the device must come back idle",
  },
  {
    attack: "Fail more requests than the stock engine",
    defense: `a pass with more than ${protocol.gates.failedRequests.absolute} or ${protocol.gates.failedRequests.share * 100}% more failed requests counts as a ratio of 0`,
  },
];
