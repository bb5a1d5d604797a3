import { listQueue, type QueueListing } from "../admin/list-queue";
import { logger } from "../logger";

export type QueueListener = (listing: QueueListing) => void;

export interface QueueWatchOptions {
  /** Reads the queue (the operators' listing, in the order evaluations start). */
  read?: () => Promise<QueueListing>;
  /** How often the queue is read while anyone listens. */
  everyMs?: number;
}

/** What a listener is told about: an evaluation joining or leaving the queue, starting, finishing or changing phase. */
export function queueSignature(listing: QueueListing): string {
  return [...listing.running, ...listing.queued]
    .map((r) => `${r.evaluationId}:${r.status}:${r.phase ?? ""}:${r.attempt}:${r.podId ?? ""}`)
    .join(",");
}

/**
 * One reader of the queue per process, shared by every live page that shows it (a queued evaluation's position, the
 * operators' queue): PostgreSQL is read every `everyMs` while someone listens, and listeners hear of each change, so
 * the cost is one query per interval whatever the number of viewers. A new listener is told the queue as it stands.
 */
export class QueueWatch {
  private readonly listeners = new Set<QueueListener>();
  private readonly read: () => Promise<QueueListing>;
  private readonly everyMs: number;
  private timer: ReturnType<typeof setInterval> | undefined;
  private last: { listing: QueueListing; signature: string } | undefined;
  private reading: Promise<void> | undefined;

  constructor(options: QueueWatchOptions = {}) {
    this.read = options.read ?? listQueue;
    this.everyMs = options.everyMs ?? 2_000;
  }

  private poll(): Promise<void> {
    this.reading ??= this.read()
      .then((listing) => {
        const signature = queueSignature(listing);
        const changed = signature !== this.last?.signature;
        this.last = { listing, signature };
        if (changed) for (const listener of [...this.listeners]) this.tell(listener, listing);
      })
      .catch((error: unknown) => logger.warn("queue watch: reading the queue failed", { error: String(error) }))
      .finally(() => {
        this.reading = undefined;
      });
    return this.reading;
  }

  private tell(listener: QueueListener, listing: QueueListing): void {
    try {
      listener(listing);
    } catch (error) {
      logger.error("queue watch: a listener threw", { error: String(error) });
    }
  }

  /** Calls `listener` now with the queue as it stands, then on every change; resolves to the release function. */
  async listen(listener: QueueListener): Promise<() => void> {
    const first = this.listeners.size === 0;
    this.listeners.add(listener);
    if (first) {
      this.last = undefined;
      this.timer = setInterval(() => void this.poll(), this.everyMs);
      this.timer.unref?.();
    }
    if (first || !this.last) await this.poll();
    else this.tell(listener, this.last.listing);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  listenerCount(): number {
    return this.listeners.size;
  }
}

const globalForWatch = globalThis as unknown as { arenaQueueWatch?: QueueWatch };

export function queueWatch(): QueueWatch {
  globalForWatch.arenaQueueWatch ??= new QueueWatch();
  return globalForWatch.arenaQueueWatch;
}
