import type { Redis } from "ioredis";
import { createRedis } from "./connection";

type Listener = (message: string) => void;

/**
 * One Redis subscriber per process, fanned out to every listener of a channel. A channel is
 * subscribed while it has listeners and unsubscribed when its last listener leaves.
 */
export class EventHub {
  private readonly listeners = new Map<string, Set<Listener>>();
  private subscriber: Redis | undefined;

  constructor(private readonly connect: () => Redis = () => createRedis()) {}

  private client(): Redis {
    if (!this.subscriber) {
      this.subscriber = this.connect();
      this.subscriber.on("message", (channel: string, message: string) => {
        for (const listener of this.listeners.get(channel) ?? []) listener(message);
      });
    }
    return this.subscriber;
  }

  async listen(channel: string, listener: Listener): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.client().subscribe(channel);
    }
    set.add(listener);
    let released = false;
    return async () => {
      if (released) return;
      released = true;
      const current = this.listeners.get(channel);
      current?.delete(listener);
      if (current && current.size === 0) {
        this.listeners.delete(channel);
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
