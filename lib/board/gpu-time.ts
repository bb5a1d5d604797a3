/**
 * How long an evaluation has held its GPU slot, in seconds: what the worker recorded when it has, otherwise from the
 * moment a worker took it from the queue to its end (or `now`, while it runs). Null while it waits.
 */
export function gpuTimeSeconds(e: {
  gpuSeconds: number;
  startedAt: string | null;
  finishedAt: string | null;
  now?: Date;
}): number | null {
  if (e.gpuSeconds > 0) return e.gpuSeconds;
  if (!e.startedAt) return null;
  const end = e.finishedAt ? Date.parse(e.finishedAt) : (e.now ?? new Date()).getTime();
  return Math.max(0, (end - Date.parse(e.startedAt)) / 1000);
}
