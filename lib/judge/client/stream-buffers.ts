/**
 * A reply's content events as numbers: each one's arrival (float ms) and the reply's length after it, in typed
 * arrays that a lane keeps from reply to reply and grows by doubling. Per event nothing reaches the heap; the reply's
 * arrays are copied out once, at its end.
 */
export class StreamBuffers {
  private arrivals: Float64Array;
  private lengths: Float64Array;
  private count = 0;

  constructor(capacity = 512) {
    this.arrivals = new Float64Array(capacity);
    this.lengths = new Float64Array(capacity);
  }

  get size(): number {
    return this.count;
  }

  /** Starts a reply. */
  reset(): void {
    this.count = 0;
  }

  push(arrivedMs: number, endsAt: number): void {
    if (this.count === this.arrivals.length) {
      const arrivals = new Float64Array(this.count * 2);
      const lengths = new Float64Array(this.count * 2);
      arrivals.set(this.arrivals);
      lengths.set(this.lengths);
      this.arrivals = arrivals;
      this.lengths = lengths;
    }
    this.arrivals[this.count] = arrivedMs;
    this.lengths[this.count] = endsAt;
    this.count++;
  }

  /** The reply's arrival times, as a plain array of its own. */
  times(): number[] {
    return copyOut(this.arrivals, this.count);
  }

  /** The reply's cumulative lengths after each event, as a plain array of its own. */
  ends(): number[] {
    return copyOut(this.lengths, this.count);
  }
}

function copyOut(from: Float64Array, n: number): number[] {
  const out = new Array<number>(n);
  for (let i = 0; i < n; i++) out[i] = from[i]!;
  return out;
}
