/**
 * Where a queued evaluation stands and when it should start, from the queue's order in PostgreSQL and the measured
 * durations of recent evaluations of each profile. Pure, so the events stream and its tests compute it alike.
 */

/** An evaluation of the queue as the estimate needs it: its state, its profile, and when it left the queue. */
export interface QueueItem {
  evaluationId: string;
  status: string;
  profile: string;
  queuedAt: string;
  startedAt: string | null;
}

/** What recent evaluations of one profile took, start to finish. */
export interface ProfileDuration {
  medianSeconds: number;
  runs: number;
}

export interface QueueEstimate {
  /** When it should leave the queue, and when it should be done. */
  startsAt: string;
  finishesAt: string;
  /** The profiles whose measured durations the estimate used, each with its median and how many runs it is over. */
  basis: { profile: string; medianSeconds: number; runs: number }[];
}

export interface QueueStanding {
  evaluationId: string;
  /** 1 for the next evaluation to start. */
  position: number;
  /** Queued ahead of it, and running now. */
  ahead: number;
  running: number;
  slots: number;
  /** Null when a profile it depends on has no measured evaluation yet (`unmeasured` names them). */
  estimate: QueueEstimate | null;
  unmeasured: string[];
  at: string;
}

const QUEUED = "queued";

/** The queue's order: oldest first, the order the worker takes them in (ties by id, as PostgreSQL returns them). */
function byQueueOrder(a: QueueItem, b: QueueItem): number {
  return Date.parse(a.queuedAt) - Date.parse(b.queuedAt) || a.evaluationId.localeCompare(b.evaluationId);
}

/**
 * The standing of `evaluationId` among `items` (the active evaluations), or null when it is not queued. The wait is
 * played out slot by slot: each running evaluation holds its slot for what is left of its profile's median (none
 * once past it), each evaluation ahead takes the first slot to free up for its profile's median, and this one
 * starts when a slot frees after them.
 */
export function queueStanding(input: {
  evaluationId: string;
  items: readonly QueueItem[];
  durations: ReadonlyMap<string, ProfileDuration>;
  slots: number;
  now: Date;
}): QueueStanding | null {
  const { evaluationId, durations, now } = input;
  const slots = Math.max(1, Math.floor(input.slots));
  const queued = input.items.filter((i) => i.status === QUEUED).sort(byQueueOrder);
  const index = queued.findIndex((i) => i.evaluationId === evaluationId);
  if (index === -1) return null;
  const self = queued[index]!;
  const ahead = queued.slice(0, index);
  const running = input.items.filter((i) => i.status !== QUEUED);

  const needed = new Set([self, ...ahead, ...running].map((i) => i.profile));
  const unmeasured = [...needed].filter((p) => !durations.has(p)).sort();
  const standing = {
    evaluationId,
    position: index + 1,
    ahead: ahead.length,
    running: running.length,
    slots,
    unmeasured,
    at: now.toISOString(),
  };
  if (unmeasured.length > 0) return { ...standing, estimate: null };

  const seconds = (profile: string) => durations.get(profile)!.medianSeconds;
  const nowMs = now.getTime();
  // when each slot frees up, in ms from now; a slot nobody holds is free now
  const freeAt: number[] = running.map((r) => {
    const elapsed = r.startedAt ? (nowMs - Date.parse(r.startedAt)) / 1000 : 0;
    return Math.max(0, seconds(r.profile) - Math.max(0, elapsed)) * 1000;
  });
  while (freeAt.length < slots) freeAt.push(0);
  const takeSlot = () => {
    freeAt.sort((a, b) => a - b);
    return freeAt.shift()!;
  };
  for (const item of ahead) freeAt.push(takeSlot() + seconds(item.profile) * 1000);
  const start = takeSlot();
  const finish = start + seconds(self.profile) * 1000;
  const basis = [...needed].sort().map((profile) => ({ profile, ...durations.get(profile)! }));
  return {
    ...standing,
    estimate: {
      startsAt: new Date(nowMs + start).toISOString(),
      finishesAt: new Date(nowMs + finish).toISOString(),
      basis,
    },
  };
}

/** The median of some durations (seconds), or null for none. */
export function medianSeconds(values: readonly number[]): number | null {
  const sorted = values.filter((v) => Number.isFinite(v) && v >= 0).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
