/** One check's requests to one engine: a value per request, null where it went unanswered, and why. */
export interface CheckRun<T> {
  values: (T | null)[];
  unanswered: number;
  errors: { index: number; message: string }[];
}

/**
 * Runs `send` over the items with at most `concurrency` in flight, in order; a throw marks that request unanswered.
 * `onProgress` hears how many have settled (answered or not) after each one.
 */
export async function runCheck<I, T>(
  items: readonly I[],
  concurrency: number,
  send: (item: I, index: number) => Promise<T>,
  onProgress?: (settled: number, total: number) => void,
): Promise<CheckRun<T>> {
  if (!(concurrency >= 1)) throw new Error(`concurrency must be at least 1, got ${concurrency}`);
  const values: (T | null)[] = new Array(items.length).fill(null);
  const errors: CheckRun<T>["errors"] = [];
  let next = 0;
  let settled = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      try {
        values[index] = await send(items[index]!, index);
      } catch (error) {
        errors.push({ index, message: error instanceof Error ? error.message : String(error) });
      }
      onProgress?.(++settled, items.length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  errors.sort((a, b) => a.index - b.index);
  return { values, unanswered: errors.length, errors };
}

/**
 * What a check run left unanswered, in a line for the evaluation's log (null when it answered everything): the
 * count, and the first few errors, so a submitter whose engine fails the answers rule sees why.
 */
export function unansweredNote(who: string, what: string, run: CheckRun<unknown>, shown = 3): string | null {
  if (run.unanswered === 0) return null;
  const first = run.errors
    .slice(0, shown)
    .map((e) => `#${e.index + 1}: ${e.message.length > 200 ? `${e.message.slice(0, 200)}…` : e.message}`)
    .join("; ");
  const more = run.errors.length > shown ? `; ${run.errors.length - shown} more` : "";
  return `${who} left ${run.unanswered} of ${run.values.length} ${what} unanswered (${first}${more})`;
}
