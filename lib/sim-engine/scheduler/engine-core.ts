import type { Floor } from "../model/floor";
import type { LanguageModel } from "../model/language-model";
import { Rng } from "../model/rng";
import type { SamplingParams } from "../model/sampling";
import { SequenceState } from "../model/sequence-state";
import type { Drafter } from "../speculators/drafters";
import { type AcceptRule, plainStep, type StepResult, speculativeStep } from "../speculators/verify";
import { type CostModel, type StepWork, stepSeconds } from "./cost-model";
import { type BlockTable, type KvCache, newBlockTable } from "./kv-cache";

/** How far behind its simulated clock the engine may run and still catch up. */
const CATCH_UP_MS = 25;

export type FinishReason = "stop" | "length";

export interface GenerationRequest {
  promptTokens: readonly number[];
  maxTokens: number;
  sampling: SamplingParams;
  seed: number;
  /** Tokens produced by one step (the end token included when it ends the reply), then the finish reason. */
  onTokens(tokens: number[], finish: FinishReason | null): void;
  /** Ends the reply early with "stop" after this many tokens (the cut-replies attack). */
  stopAfter?: number;
}

export interface RequestHandle {
  abort(): void;
  /** Prompt tokens found in the prefix cache when the request was first scheduled. */
  readonly cachedTokens: number;
}

export interface EngineCoreConfig {
  target: LanguageModel;
  floor: Floor;
  eosId: number;
  drafter: Drafter | null;
  k: number;
  rule: AcceptRule;
  kv: KvCache;
  cost: CostModel;
  maxNumSeqs: number;
  maxBatchedTokens: number;
  simSpeed: number;
}

export interface EngineCounters {
  preemptions: number;
  drafts: number;
  draftTokens: number;
  acceptedTokens: number;
  acceptedPerPos: number[];
  promptTokens: number;
  generationTokens: number;
  finished: Record<FinishReason | "abort", number>;
  steps: number;
  /** Wall time spent computing steps (model, sampling, scheduling): the simulator's own CPU cost. */
  computeSeconds: number;
  /** Simulated GPU time of all steps, in seconds at SIM_SPEED 1. */
  gpuSeconds: number;
}

interface Live {
  req: GenerationRequest;
  state: SequenceState;
  rng: Rng;
  table: BlockTable;
  computed: number;
  produced: number;
  cached: number;
  admitted: boolean;
  aborted: boolean;
  done: boolean;
}

/** Continuous batching over paged KV blocks, paced in real time by the cost model. */
export class EngineCore {
  readonly counters: EngineCounters;
  private readonly running: Live[] = [];
  private readonly waiting: Live[] = [];
  private wake: (() => void) | null = null;
  private closed = false;
  private deadline = 0;
  private readonly loopDone: Promise<void>;

  constructor(private readonly cfg: EngineCoreConfig) {
    this.counters = {
      preemptions: 0,
      drafts: 0,
      draftTokens: 0,
      acceptedTokens: 0,
      acceptedPerPos: Array.from({ length: cfg.drafter ? cfg.k : 0 }, () => 0),
      promptTokens: 0,
      generationTokens: 0,
      finished: { stop: 0, length: 0, abort: 0 },
      steps: 0,
      computeSeconds: 0,
      gpuSeconds: 0,
    };
    this.loopDone = this.loop();
  }

  get numRunning(): number {
    return this.running.length;
  }

  get numWaiting(): number {
    return this.waiting.length;
  }

  submit(req: GenerationRequest): RequestHandle {
    const live: Live = {
      req,
      state: new SequenceState(req.promptTokens),
      rng: new Rng(req.seed),
      table: newBlockTable(),
      computed: 0,
      produced: 0,
      cached: 0,
      admitted: false,
      aborted: false,
      done: false,
    };
    this.waiting.push(live);
    this.counters.promptTokens += req.promptTokens.length;
    this.wake?.();
    return {
      abort: () => {
        if (!live.done) live.aborted = true;
      },
      get cachedTokens() {
        return live.cached;
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wake?.();
    await this.loopDone;
  }

  private async loop(): Promise<void> {
    while (!this.closed) {
      this.dropAborted();
      if (this.running.length === 0 && this.waiting.length === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = null;
        this.deadline = Number.NEGATIVE_INFINITY;
        continue;
      }
      const t0 = performance.now();
      const { work, emits } = this.step();
      const gpu = stepSeconds(this.cfg.cost, work, this.cfg.drafter?.method ?? null);
      const now = performance.now();
      this.counters.computeSeconds += (now - t0) / 1000;
      this.counters.gpuSeconds += gpu;
      this.counters.steps++;
      // Deadlines chain while busy, so timer overshoot does not accumulate into the pace; after idle the clock
      // restarts from now, and it never runs more than CATCH_UP_MS behind.
      const base = Math.max(this.deadline, t0 - CATCH_UP_MS);
      this.deadline = base + (gpu * 1000) / this.cfg.simSpeed;
      const wait = this.deadline - performance.now();
      // Timers fire a millisecond late at best: shorter waits are left to the deadline chain.
      if (wait >= 1) await new Promise((r) => setTimeout(r, wait));
      else await new Promise((r) => setImmediate(r));
      for (const [live, tokens, finish] of emits) {
        if (live.aborted) continue;
        try {
          live.req.onTokens(tokens, finish);
        } catch (err) {
          // A consumer's failure ends its own request, never the engine loop.
          live.aborted = true;
          console.error(`sim-engine: request consumer failed: ${err instanceof Error ? err.message : String(err)}`);
        }
      }
    }
  }

  private dropAborted(): void {
    for (const list of [this.running, this.waiting]) {
      for (let i = list.length - 1; i >= 0; i--) {
        const live = list[i]!;
        if (!live.aborted) continue;
        list.splice(i, 1);
        this.cfg.kv.release(live.table);
        live.done = true;
        this.counters.finished.abort++;
      }
    }
  }

  private step(): { work: StepWork; emits: [Live, number[], FinishReason | null][] } {
    const { kv, maxBatchedTokens } = this.cfg;
    const work: StepWork = { decodeTokens: 0, contextTokens: 0, prefill: [], draftSequences: 0, draftDepth: 0 };
    const emits: [Live, number[], FinishReason | null][] = [];
    let budget = maxBatchedTokens;
    const advance = (live: Live, result: StepResult) => {
      const out = this.accept(live, result);
      emits.push([live, out.tokens, out.finish]);
      kv.commit(live.table, live.state.tokens);
      if (out.finish) {
        this.running.splice(this.running.indexOf(live), 1);
        kv.release(live.table);
        live.done = true;
      }
    };

    // Decodes first, then prefill chunks with what is left of the token budget.
    for (const live of [...this.running]) {
      if (!this.running.includes(live) || live.computed < live.state.length) continue;
      const ctx = this.context(live);
      const spec = this.cfg.drafter && ctx.budget > 1 ? Math.min(this.cfg.k, ctx.budget - 1) : 0;
      if (!this.reserve(live, live.state.length + spec + 1)) continue;
      const before = live.state.length;
      const result =
        spec > 0
          ? speculativeStep(live.state, ctx, this.cfg.drafter!, spec, this.cfg.rule)
          : plainStep(live.state, ctx);
      work.decodeTokens += result.verified;
      work.contextTokens += before;
      budget -= result.verified;
      if (result.drafted > 0) {
        work.draftSequences++;
        work.draftDepth = Math.max(work.draftDepth, result.drafted);
        this.counters.drafts++;
        this.counters.draftTokens += result.drafted;
        result.acceptedAt.forEach((a, pos) => {
          if (a) {
            this.counters.acceptedTokens++;
            this.counters.acceptedPerPos[pos] = (this.counters.acceptedPerPos[pos] ?? 0) + 1;
          }
        });
      }
      advance(live, result);
    }
    for (const live of [...this.running]) {
      if (budget <= 0) break;
      if (!this.running.includes(live) || live.computed >= live.state.length) continue;
      budget -= this.prefillChunk(live, budget, work);
      if (live.computed === live.state.length && this.reserve(live, live.state.length + 1)) {
        advance(live, plainStep(live.state, this.context(live)));
      }
    }

    while (this.waiting.length > 0 && this.running.length < this.cfg.maxNumSeqs && budget > 0) {
      const live = this.waiting[0]!;
      const cached = kv.admit(live.table, live.state.tokens, !live.admitted);
      if (cached < 0) break;
      this.waiting.shift();
      if (!live.admitted) live.cached = cached;
      live.admitted = true;
      live.computed = cached;
      this.running.push(live);
      budget -= this.prefillChunk(live, budget, work);
      if (live.computed === live.state.length && this.reserve(live, live.state.length + 1)) {
        advance(live, plainStep(live.state, this.context(live)));
      }
    }

    return { work, emits };
  }

  private prefillChunk(live: Live, budget: number, work: StepWork): number {
    const chunk = Math.min(budget, live.state.length - live.computed);
    if (chunk <= 0) return 0;
    work.prefill.push({ tokens: chunk, start: live.computed });
    live.computed += chunk;
    return chunk;
  }

  private context(live: Live) {
    const limit = Math.min(live.req.maxTokens, live.req.stopAfter ?? Number.POSITIVE_INFINITY);
    return {
      target: this.cfg.target,
      floor: this.cfg.floor,
      sampling: live.req.sampling,
      rng: live.rng,
      eosId: this.cfg.eosId,
      budget: Math.max(1, limit - live.produced),
    };
  }

  /** Blocks for `length` tokens, preempting the latest-admitted requests (vLLM's policy) until they fit. */
  private reserve(live: Live, length: number): boolean {
    while (!this.cfg.kv.ensure(live.table, length)) {
      const victim = this.running[this.running.length - 1]!;
      this.preempt(victim);
      if (victim === live) return false;
    }
    return true;
  }

  private preempt(victim: Live): void {
    const i = this.running.indexOf(victim);
    if (i >= 0) this.running.splice(i, 1);
    this.cfg.kv.release(victim.table);
    victim.computed = 0;
    this.waiting.unshift(victim);
    this.counters.preemptions++;
  }

  /** Applies the end token, max_tokens and the cut to a step's tokens; the state keeps only what was accepted. */
  private accept(live: Live, result: StepResult): { tokens: number[]; finish: FinishReason | null } {
    const limit = Math.min(live.req.maxTokens, live.req.stopAfter ?? Number.POSITIVE_INFINITY);
    const out: number[] = [];
    let finish: FinishReason | null = null;
    for (const t of result.tokens) {
      out.push(t);
      live.produced++;
      if (t === this.cfg.eosId) finish = "stop";
      else if (live.produced >= live.req.maxTokens) finish = "length";
      else if (live.produced >= limit) finish = "stop";
      if (finish) break;
    }
    const extra = result.tokens.length - out.length;
    if (extra > 0) live.state.truncate(live.state.length - extra);
    live.computed = live.state.length;
    this.counters.generationTokens += out.length;
    if (finish) this.counters.finished[finish]++;
    return { tokens: out, finish };
  }
}
