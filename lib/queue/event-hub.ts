import type { Redis } from "ioredis";
import type { z } from "zod";
import { logger } from "../logger";
import { createRedis } from "./connection";

type Entry = { schema: z.ZodType<unknown>; listener: (message: unknown) => void };

/** Larger messages are dropped unread: the arena's own are a few bytes, and JSON.parse of a huge one blocks. */
const MAX_MESSAGE_BYTES = 64 * 1024;
/** At most one log line per channel and this interval for dropped messages; the rest are counted in the next one. */
const DROP_LOG_EVERY_MS = 10_000;

export interface EventHubOptions {
  maxMessageBytes?: number;
  /** Where dropped messages are reported (the process's logger unless a test listens). */
  onDrop?: (drop: { channel: string; why: string; dropped: number }) => void;
}

/**
 * One Redis subscriber per process, fanned out to every listener of a channel. A channel is subscribed while it has
 * listeners and unsubscribed when its last listener leaves. Whatever arrives is untrusted (anything that holds the
 * Redis password can PUBLISH): each message is parsed as JSON and checked with its listener's zod schema, and one
 * that is too large, not JSON, or not of that shape is dropped and logged; a listener that throws is logged too.
 * Nothing a publisher sends can throw in this process.
 */
export class EventHub {
  private readonly listeners = new Map<string, Set<Entry>>();
  private readonly drops = new Map<string, { count: number; loggedAt: number }>();
  private subscriber: Redis | undefined;
  private readonly maxBytes: number;

  constructor(
    private readonly connect: () => Redis = () => createRedis(),
    private readonly options: EventHubOptions = {},
  ) {
    this.maxBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  }

  private client(): Redis {
    if (!this.subscriber) {
      this.subscriber = this.connect();
      this.subscriber.on("messageBuffer", (channel: Buffer, message: Buffer | undefined) =>
        this.deliver(channel.toString("utf8"), message ?? Buffer.alloc(0)),
      );
      this.subscriber.on("error", (error: Error) => logger.warn("event hub: Redis error", { error: error.message }));
    }
    return this.subscriber;
  }

  private deliver(channel: string, raw: Buffer): void {
    const entries = this.listeners.get(channel);
    if (!entries || entries.size === 0) return;
    if (raw.length > this.maxBytes) {
      this.drop(channel, `a message of ${raw.length} bytes`);
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString("utf8"));
    } catch {
      this.drop(channel, "a message that is not JSON");
      return;
    }
    for (const entry of [...entries]) {
      const checked = entry.schema.safeParse(parsed);
      if (!checked.success) {
        this.drop(channel, `a message of another shape (${checked.error.issues[0]?.message ?? "invalid"})`);
        continue;
      }
      try {
        entry.listener(checked.data);
      } catch (error) {
        logger.error("event hub: a listener threw", { channel, error: String(error) });
      }
    }
  }

  private drop(channel: string, why: string): void {
    const now = Date.now();
    const seen = this.drops.get(channel) ?? { count: 0, loggedAt: 0 };
    seen.count += 1;
    this.drops.set(channel, seen);
    if (now - seen.loggedAt < DROP_LOG_EVERY_MS) return;
    const report = { channel, why, dropped: seen.count };
    seen.count = 0;
    seen.loggedAt = now;
    if (this.options.onDrop) this.options.onDrop(report);
    else logger.warn("event hub: dropped what Redis delivered", report);
  }

  /** Calls `listener` with every message on `channel` that parses as JSON of `schema`'s shape. */
  async listen<T>(channel: string, schema: z.ZodType<T>, listener: (message: T) => void): Promise<() => Promise<void>> {
    const entry: Entry = { schema, listener: listener as (message: unknown) => void };
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.client().subscribe(channel);
    }
    set.add(entry);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const current = this.listeners.get(channel);
      current?.delete(entry);
      if (current && current.size === 0) {
        this.listeners.delete(channel);
        this.drops.delete(channel);
        await this.client().unsubscribe(channel);
      }
    };
  }

  channelCount(): number {
    return this.listeners.size;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    const s = this.subscriber;
    this.subscriber = undefined;
    if (s) await s.quit().catch(() => s.disconnect());
  }
}

const globalForHub = globalThis as unknown as { arenaEventHub?: EventHub };

export function eventHub(): EventHub {
  globalForHub.arenaEventHub ??= new EventHub();
  return globalForHub.arenaEventHub;
}

export async function resetEventHubForTests(): Promise<void> {
  const hub = globalForHub.arenaEventHub;
  globalForHub.arenaEventHub = undefined;
  if (hub) await hub.close();
}
