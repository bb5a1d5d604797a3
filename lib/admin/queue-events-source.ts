import { queueWatch } from "@/lib/evaluations/watch-queue";
import type { SseSource } from "@/lib/http/sse";

/**
 * The operators' live queue as server-sent events: a `queue` event with the listing (lib/admin/list-queue.ts) as it
 * stands on connecting, then one each time it changes. Nothing is stored, so nothing is replayed: a reconnect gets
 * the queue as it stands.
 */
export function queueEventsSource(): SseSource {
  return {
    initial: async () => ({ event: "ready", data: {} }),
    replay: async () => [],
    async subscribe(onEvent) {
      const release = await queueWatch().listen((listing) => onEvent({ event: "queue", data: listing }));
      return async () => release();
    },
    isFinal: () => false,
  };
}
