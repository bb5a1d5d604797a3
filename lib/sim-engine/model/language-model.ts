import type { Floor } from "./floor";
import type { NgramTables } from "./ngram-tables";
import { hashTokens, hashUnit } from "./rng";
import type { SequenceState } from "./sequence-state";

/**
 * A next-token distribution over the whole vocabulary: `probs[i]` for the sparse support `ids[i]` (floor share
 * included), and `eps · floor(v)` for every other token v.
 */
export interface TokenDist {
  ids: number[];
  probs: number[];
  eps: number;
}

export interface ModelParams {
  /** Longest context (in tokens) the n-gram part conditions on. */
  maxOrder: number;
  /** Sharpening exponent on the interpolated n-gram probabilities. */
  beta: number;
  /** Witten-Bell's weight on unseen continuations (higher backs off more). */
  backoff: number;
  /** Weight of the copy head (the token that followed the current 3-token suffix earlier in the context). */
  copyWeight: number;
  /** Amplitude of hash-seeded logit perturbations keyed by the last 3 tokens. */
  noise: number;
  noiseSalt: number;
  /** A second perturbation on top (the quantized attack's error); 0 for the honest target. */
  perturb: number;
  perturbSalt: number;
  /** Share of the analytic floor over the whole vocabulary. */
  eps: number;
  /** The end token's n-gram weight is scaled by this before sharpening (sets the reply-length distribution). */
  eosScale: number;
}

/** Whether (pa, ia) sorts before (pb, ib): more likely first, ties by id. */
const before = (pa: number, ia: number, pb: number, ib: number) => pa > pb || (pa === pb && ia < ib);

/** The `cap` best tokens offered so far, kept sorted by insertion (k is small: 20 for the checks). */
class RankedList {
  readonly ids: number[] = [];
  readonly probs: number[] = [];

  constructor(private readonly cap: number) {}

  offer(id: number, p: number): void {
    const n = this.ids.length;
    if (n === this.cap && !before(p, id, this.probs[n - 1]!, this.ids[n - 1]!)) return;
    let at = n === this.cap ? n - 1 : n;
    while (at > 0 && before(p, id, this.probs[at - 1]!, this.ids[at - 1]!)) {
      this.ids[at] = this.ids[at - 1]!;
      this.probs[at] = this.probs[at - 1]!;
      at--;
    }
    this.ids[at] = id;
    this.probs[at] = p;
  }
}

/** A deterministic function from context to a full-vocabulary distribution, cheap enough for 20 busy lanes. */
export class LanguageModel {
  constructor(
    readonly tables: NgramTables,
    readonly floor: Floor,
    readonly params: ModelParams,
  ) {}

  /**
   * Per token id, its index in the support being built, else -1: a scratch table in place of a Map per call (dist
   * and top run to their end without yielding, and leave it all -1 again).
   */
  private slotTable: Int32Array | null = null;

  private slots(): Int32Array {
    this.slotTable ??= new Int32Array(this.floor.size).fill(-1);
    return this.slotTable;
  }

  dist(state: SequenceState): TokenDist {
    const toks = state.tokens;
    const len = toks.length;
    const { maxOrder, beta, backoff, copyWeight, noise, noiseSalt, perturb, perturbSalt, eps } = this.params;
    const slot = this.slots();
    const ids: number[] = [];
    const w: number[] = [];
    // the support in first-added order, each weight summed in the order its parts are added (the sampler reads both)
    const add = (id: number, v: number) => {
      const j = slot[id]!;
      if (j < 0) {
        slot[id] = ids.length;
        ids.push(id);
        w.push(0 + v);
      } else w[j] = w[j]! + v;
    };
    let remaining = 1;
    const t = this.tables;
    for (let o = Math.min(maxOrder, len); o >= 1; o--) {
      const row = t.byOrder[o]!.get(hashTokens(toks, len - o, len, o));
      if (row === undefined) continue;
      const total = t.rowTotal[row]!;
      const lambda = total / (total + backoff * t.rowDistinct[row]!);
      const scale = (remaining * lambda) / total;
      for (let i = t.rowStart[row]!, end = t.rowStart[row + 1]!; i < end; i++) add(t.ids[i]!, scale * t.counts[i]!);
      remaining *= 1 - lambda;
    }
    const u = this.tables.unigram;
    const uscale = remaining / u.total;
    for (let i = 0; i < u.ids.length; i++) add(u.ids[i]!, uscale * u.counts[i]!);
    if (copyWeight > 0) {
      const cand = state.copyCandidate();
      if (cand >= 0) {
        for (let i = 0; i < w.length; i++) w[i] = w[i]! * (1 - copyWeight);
        add(cand, copyWeight);
      }
    }
    const e = slot[this.floor.eosId]!;
    if (e >= 0) w[e] = w[e]! * this.params.eosScale;
    for (let i = 0; i < ids.length; i++) slot[ids[i]!] = -1;
    const ctx = hashTokens(toks, Math.max(0, len - 3), len, noiseSalt) % 0x7fffffff;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < w.length; i++) {
      let l = beta * Math.log(w[i]!) + (noise > 0 ? noise * hashUnit(ctx, ids[i]!) : 0);
      if (perturb > 0) l += perturb * hashUnit(ctx ^ perturbSalt, ids[i]!);
      w[i] = l;
      if (l > max) max = l;
    }
    let z = 0;
    for (let i = 0; i < w.length; i++) {
      w[i] = Math.exp(w[i]! - max);
      z += w[i]!;
    }
    const fw = this.floor.weights;
    for (let i = 0; i < w.length; i++) w[i] = ((1 - eps) * w[i]!) / z + eps * fw[ids[i]!]!;
    return { ids, probs: w, eps };
  }

  prob(d: TokenDist, token: number): number {
    const j = d.ids.indexOf(token);
    return j >= 0 ? d.probs[j]! : d.eps * this.floor.weights[token]!;
  }

  /** vLLM's rank: 1 + the number of tokens strictly more likely. */
  rank(d: TokenDist, token: number): number {
    const p = this.prob(d, token);
    let above = 0;
    const fw = this.floor.weights;
    const threshold = p / d.eps;
    above += this.floor.countAbove(threshold);
    for (let i = 0; i < d.ids.length; i++) {
      if (fw[d.ids[i]!]! > threshold) above--;
      if (d.probs[i]! > p) above++;
    }
    return above + 1;
  }

  /**
   * The k most likely tokens, most likely first (ties by id): the support's k best and the floor's first k tokens
   * outside the support, sorted together; no token past either can be among the k.
   */
  top(d: TokenDist, k: number): { id: number; prob: number }[] {
    if (k <= 0) return [];
    const best = new RankedList(k);
    for (let i = 0; i < d.ids.length; i++) best.offer(d.ids[i]!, d.probs[i]!);
    // the floor's first k outside the support: in the floor's order, which its products by eps keep unless rounding
    // ties two of them (the list puts those by id, as the sort order says)
    const slot = this.slots();
    for (let i = 0; i < d.ids.length; i++) slot[d.ids[i]!] = i;
    const fromFloor = new RankedList(k);
    for (const id of this.floor.order) {
      if (fromFloor.ids.length >= k) break;
      if (slot[id]! < 0) fromFloor.offer(id, d.eps * this.floor.weights[id]!);
    }
    for (let i = 0; i < d.ids.length; i++) slot[d.ids[i]!] = -1;
    const out: { id: number; prob: number }[] = [];
    let a = 0;
    let b = 0;
    while (out.length < k && (a < best.ids.length || b < fromFloor.ids.length)) {
      const fromBest =
        b >= fromFloor.ids.length ||
        (a < best.ids.length && before(best.probs[a]!, best.ids[a]!, fromFloor.probs[b]!, fromFloor.ids[b]!));
      if (fromBest) {
        out.push({ id: best.ids[a]!, prob: best.probs[a]! });
        a++;
      } else {
        out.push({ id: fromFloor.ids[b]!, prob: fromFloor.probs[b]! });
        b++;
      }
    }
    return out;
  }

  argmax(d: TokenDist): number {
    let best = -1;
    let bestP = -1;
    for (let i = 0; i < d.ids.length; i++) {
      const p = d.probs[i]!;
      if (p > bestP || (p === bestP && d.ids[i]! < best)) {
        bestP = p;
        best = d.ids[i]!;
      }
    }
    for (const id of this.floor.order) {
      if (d.ids.includes(id)) continue;
      const p = d.eps * this.floor.weights[id]!;
      if (p > bestP || (p === bestP && id < best)) best = id;
      break;
    }
    return best;
  }
}
