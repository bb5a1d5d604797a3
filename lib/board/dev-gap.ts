import type { DevGap } from "./board-entry";

/**
 * A scored result is flagged when it falls far below the same account's best dev result on the task:
 * more than `minDrop` (10%) of the dev score, and more than five times the task's largest A/A speed error, so
 * that the run-to-run error of an honest engine (about 1–2%) never raises it.
 */
export function devGap(
  test: number | null,
  devScores: readonly (number | null)[],
  speedNoise: number,
  minDrop = 0.1,
): DevGap | null {
  if (test === null) return null;
  const scores = devScores.filter((s): s is number => s !== null && s > 0);
  if (scores.length === 0) return null;
  const dev = Math.max(...scores);
  const drop = (dev - test) / dev;
  return drop > Math.max(minDrop, 5 * speedNoise) ? { test, dev, drop } : null;
}
