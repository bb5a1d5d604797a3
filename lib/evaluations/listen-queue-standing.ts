import type { QueueListing } from "../admin/list-queue";
import { env } from "../env";
import { logger } from "../logger";
import { type ProfileDuration, type QueueItem, type QueueStanding, queueStanding } from "./queue-estimate";
import { recentDurations } from "./recent-durations";
import { type QueueWatch, queueWatch } from "./watch-queue";

/** The measured durations are read again at most this often (they change only when an evaluation is scored). */
const DURATIONS_FRESH_MS = 15_000;

let held: { at: number; durations: Promise<Map<string, ProfileDuration>> } | undefined;

function durationsNow(read: () => Promise<Map<string, ProfileDuration>>): Promise<Map<string, ProfileDuration>> {
  if (!held || Date.now() - held.at > DURATIONS_FRESH_MS) {
    const entry = { at: Date.now(), durations: read() };
    held = entry;
    entry.durations.catch(() => {
      if (held === entry) held = undefined;
    });
  }
  return held.durations;
}

export function queueItems(listing: QueueListing): QueueItem[] {
  return [...listing.running, ...listing.queued].map((r) => ({
    evaluationId: r.evaluationId,
    status: r.status,
    profile: r.profile,
    queuedAt: r.queuedAt,
    startedAt: r.startedAt,
  }));
}

/** Two standings a viewer would read alike (estimates within a minute of each other) are not sent twice. */
function sameReading(a: QueueStanding, b: QueueStanding): boolean {
  const minute = (iso: string | undefined) => (iso ? Math.round(Date.parse(iso) / 60_000) : null);
  return (
    a.position === b.position &&
    a.ahead === b.ahead &&
    a.running === b.running &&
    a.unmeasured.join() === b.unmeasured.join() &&
    minute(a.estimate?.startsAt) === minute(b.estimate?.startsAt) &&
    minute(a.estimate?.finishesAt) === minute(b.estimate?.finishesAt)
  );
}

/**
 * Calls `onStanding` with the evaluation's place in the queue and its wait estimate as soon as listening starts and
 * whenever the queue moves (an evaluation ahead starts, finishes or is cancelled), until it leaves the queue.
 * Resolves to the release function.
 */
export async function listenQueueStanding(
  evaluationId: string,
  onStanding: (standing: QueueStanding) => void,
  deps: {
    watch?: QueueWatch;
    durations?: () => Promise<Map<string, ProfileDuration>>;
    slots?: number;
  } = {},
): Promise<() => Promise<void>> {
  const watch = deps.watch ?? queueWatch();
  const readDurations = deps.durations ?? (() => durationsNow(recentDurations));
  let last: QueueStanding | undefined;
  let chain = Promise.resolve();
  let released = false;
  const release = await watch.listen((listing) => {
    chain = chain.then(async () => {
      if (released) return;
      const durations = await readDurations();
      const standing = queueStanding({
        evaluationId,
        items: queueItems(listing),
        durations,
        slots: deps.slots ?? env().GPU_SLOTS,
        now: new Date(),
      });
      if (!standing || released || (last && sameReading(last, standing))) return;
      last = standing;
      onStanding(standing);
    });
    chain = chain.catch((error: unknown) =>
      logger.warn("queue standing: the estimate could not be read", { evaluationId, error: String(error) }),
    );
  });
  await chain;
  return async () => {
    released = true;
    release();
  };
}
