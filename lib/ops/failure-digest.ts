/** Control sequences a test runner colours its output with. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what is matched
const ansi = /\x1b\[[0-9;]*[A-Za-z]/g;

/** A failed test's heading: vitest's `FAIL  file > test`, Playwright's `1) file:line › test`. */
const heading = /^\s*(FAIL\s|\d+\) \S)/;

/** A code frame, a stack line or a separator: where the error was, which the runner's full output keeps. */
const frame = /^\s*(>\s*)?\d+\s*\||^\s*(\||❯|at )|⎯{5}/;

export type FailureDigest = { push(line: string): void; lines(): string[] };

/**
 * Keeps each failed test's heading and its error's message (its first paragraph, up to `messageLines` lines) from a
 * step's output as it streams, so the run's summary, the tail an operator or a CI log shows, names what failed
 * without the thousands of lines before it.
 */
export function createFailureDigest(options: { messageLines?: number; maxLines?: number } = {}): FailureDigest {
  const messageLines = options.messageLines ?? 12;
  const max = options.maxLines ?? 80;
  const kept: string[] = [];
  const seen = new Set<string>();
  // lines still to keep of the current failure's message; -1 while its first line has not come
  let owed = 0;
  let started = false;
  const keep = (line: string) => {
    if (kept.length < max) kept.push(line);
  };
  return {
    push(raw) {
      const line = raw.replace(ansi, "").trimEnd();
      if (heading.test(line)) {
        const key = line.trim();
        // vitest names a failed file in its progress and again among its failures: keep the first
        if (seen.has(key)) {
          owed = 0;
          return;
        }
        seen.add(key);
        keep(key);
        owed = messageLines;
        started = false;
        return;
      }
      if (owed === 0) return;
      if (line.trim() === "") {
        if (started) owed = 0;
        return;
      }
      if (frame.test(line)) {
        owed = 0;
        return;
      }
      started = true;
      keep(`    ${line.trim()}`);
      owed -= 1;
    },
    lines: () => [...kept],
  };
}
