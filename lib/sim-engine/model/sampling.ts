import type { Floor } from "./floor";
import type { TokenDist } from "./language-model";

/** The request's sampling fields, normalised: topK 0 disables top-k, topP 1 disables top-p, temperature 0 is greedy. */
export interface SamplingParams {
  temperature: number;
  topK: number;
  topP: number;
}

/** vLLM treats temperatures below this as greedy. */
const GREEDY_BELOW = 1e-5;
/** Explicit floor tokens added for top-k beyond the support; larger k acts as no top-k on the floor's tail. */
const MAX_EXPLICIT_FLOOR = 256;

/**
 * The distribution a request samples from: explicit tokens, plus a "bucket" holding every other token with
 * probability `bucketAlpha · floor(v)^invT` (the untouched tail of the analytic floor).
 */
export interface SamplingDist {
  ids: number[];
  probs: number[];
  bucketAlpha: number;
  invT: number;
}

export function isGreedy(p: SamplingParams): boolean {
  return p.temperature < GREEDY_BELOW;
}

export function argmaxOf(d: TokenDist, floor: Floor): number {
  let best = -1;
  let bestP = -1;
  for (let i = 0; i < d.ids.length; i++) {
    const p = d.probs[i]!;
    if (p > bestP || (p === bestP && d.ids[i]! < best)) {
      bestP = p;
      best = d.ids[i]!;
    }
  }
  for (const id of floor.order) {
    if (d.ids.includes(id)) continue;
    const p = d.eps * floor.weights[id]!;
    if (p > bestP || (p === bestP && id < best)) best = id;
    break;
  }
  return best;
}

/** Temperature, then top-k, then top-p, as vLLM's sampler applies them. */
export function processDist(d: TokenDist, sp: SamplingParams, floor: Floor): SamplingDist {
  if (isGreedy(sp)) return { ids: [argmaxOf(d, floor)], probs: [1], bucketAlpha: 0, invT: 1 };
  const invT = 1 / sp.temperature;
  const ids = d.ids.slice();
  const logp = d.probs.map((p) => Math.log(p));
  const useTopK = sp.topK > 0 && sp.topK - ids.length <= MAX_EXPLICIT_FLOOR;
  if (useTopK && sp.topK > ids.length) {
    const inSupport = new Set(ids);
    for (const id of floor.order) {
      if (ids.length >= sp.topK) break;
      if (inSupport.has(id)) continue;
      ids.push(id);
      logp.push(Math.log(d.eps * floor.weights[id]!));
    }
  }
  let maxL = Number.NEGATIVE_INFINITY;
  for (const l of logp) if (l * invT > maxL) maxL = l * invT;
  const order = ids.map((_, i) => i);
  const w = logp.map((l) => Math.exp(l * invT - maxL));
  order.sort((a, b) => w[b]! - w[a]! || ids[a]! - ids[b]!);
  let keep = order;
  let bucketW = 0;
  const table = floor.temperedTable(invT);
  let explicitFloorPow = 0;
  for (const id of ids) explicitFloorPow += table.pow[id]!;
  const bucketFloorPow = Math.max(0, table.total - explicitFloorPow);
  if (useTopK) {
    keep = order.slice(0, sp.topK);
  } else {
    bucketW = Math.exp(Math.log(d.eps) * invT - maxL) * bucketFloorPow;
  }
  let total = bucketW;
  for (const i of keep) total += w[i]!;
  if (sp.topP < 1) {
    // The floor's tail ranks below every explicit token: a cut inside it keeps it whole.
    let cum = 0;
    let n = 0;
    while (n < keep.length && cum < sp.topP * total) {
      cum += w[keep[n]!]!;
      n++;
    }
    if (cum >= sp.topP * total) {
      keep = keep.slice(0, n);
      bucketW = 0;
      total = cum;
    }
  }
  const outIds = keep.map((i) => ids[i]!);
  const outP = keep.map((i) => w[i]! / total);
  let keptFloorPow = 0;
  if (bucketW > 0) for (const id of outIds) keptFloorPow += table.pow[id]!;
  const bucketAlpha = bucketW > 0 ? bucketW / total / Math.max(1e-300, table.total - keptFloorPow) : 0;
  return { ids: outIds, probs: outP, bucketAlpha, invT };
}

export function probOf(sd: SamplingDist, id: number, floor: Floor): number {
  const j = sd.ids.indexOf(id);
  if (j >= 0) return sd.probs[j]!;
  return sd.bucketAlpha > 0 ? sd.bucketAlpha * floor.temperedTable(sd.invT).pow[id]! : 0;
}

export function sampleFrom(sd: SamplingDist, next: () => number, floor: Floor): number {
  const u = next();
  let cum = 0;
  for (let i = 0; i < sd.ids.length; i++) {
    cum += sd.probs[i]!;
    if (u < cum) return sd.ids[i]!;
  }
  if (sd.bucketAlpha > 0) return floor.sampleTempered(sd.invT, new Set(sd.ids), next);
  return sd.ids[sd.ids.length - 1]!;
}

/** norm(max(0, p − q)): where modified rejection sampling draws after a rejected draft. */
export function residual(p: SamplingDist, q: SamplingDist, floor: Floor): SamplingDist {
  const ids = [...new Set([...p.ids, ...q.ids])];
  const r = ids.map((id) => Math.max(0, probOf(p, id, floor) - probOf(q, id, floor)));
  const coef = p.invT === q.invT ? Math.max(0, p.bucketAlpha - q.bucketAlpha) : p.bucketAlpha;
  const table = coef > 0 ? floor.temperedTable(p.invT) : undefined;
  let bucketMass = 0;
  if (table) {
    let inside = 0;
    for (const id of ids) inside += table.pow[id]!;
    bucketMass = coef * Math.max(0, table.total - inside);
  }
  let total = bucketMass;
  for (const v of r) total += v;
  if (total <= 0) return p;
  const keepIds: number[] = [];
  const keepP: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (r[i]! > 0) {
      keepIds.push(ids[i]!);
      keepP.push(r[i]! / total);
    }
  }
  // Bucket tokens outside the kept ids but inside the union have residual 0; sampleFrom excludes only keepIds,
  // so fold that tiny mass back by excluding the whole union through an explicit zero-probability entry.
  for (const id of ids) {
    if (!keepIds.includes(id)) {
      keepIds.push(id);
      keepP.push(0);
    }
  }
  return { ids: keepIds, probs: keepP, bucketAlpha: coef / total, invT: p.invT };
}
