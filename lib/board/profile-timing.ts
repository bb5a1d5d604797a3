import type { ProfileDuration } from "@/lib/evaluations/queue-estimate";
import { formatDuration } from "./format";

/** What a profile costs in time: the timed passes it plays, and what its evaluations took here. */
export interface ProfileTiming {
  name: string;
  description: string;
  /** Both engines' timed passes, back to back: the least an evaluation can take. */
  timedSeconds: number;
  measured: ProfileDuration | null;
}

export function profileTimings(
  profiles: readonly {
    name: string;
    description: string;
    passes: number;
    passSeconds: Record<string, number>;
  }[],
  measured: ReadonlyMap<string, ProfileDuration>,
): ProfileTiming[] {
  return profiles.map((p) => ({
    name: p.name,
    description: p.description,
    timedSeconds: 2 * p.passes * Object.values(p.passSeconds).reduce((a, b) => a + b, 0),
    measured: measured.get(p.name) ?? null,
  }));
}

/** "about 1 h 04 min here (median of 12)", or "at least 57 min (its timed passes; not yet measured here)". */
export function timingWords(t: ProfileTiming): string {
  if (t.measured) {
    const runs = t.measured.runs;
    return `about ${formatDuration(t.measured.medianSeconds)} here (median of the last ${runs === 1 ? "run" : `${runs} runs`})`;
  }
  return `at least ${formatDuration(t.timedSeconds)} (its timed passes; not yet measured here)`;
}
