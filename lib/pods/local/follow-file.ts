import { open } from "node:fs/promises";
import { lineSplitter } from "../async-queue";

export interface FileFollower {
  /** Reads what is left to the end of the file, hands its last (even unterminated) line over, and stops. */
  drain(): Promise<void>;
  /** Stops at once, reading nothing more. */
  close(): void;
}

const CHUNK = 64 * 1024;

/**
 * Follows a file another process appends to (a pod agent's event file), from its start: each whole line to `onLine`
 * as it lands, polling every `pollMs`. A line is handed over only once its newline is written, so a line being
 * written is never read in two halves; `drain` hands over an unterminated last line too (its writer is gone).
 */
export function followFile(path: string, onLine: (line: string) => void, pollMs = 100): FileFollower {
  const splitter = lineSplitter(onLine);
  let closed = false;
  let draining = false;
  let wake: (() => void) | undefined;
  const buffer = Buffer.alloc(CHUNK);
  const loop = (async () => {
    const handle = await open(path, "r");
    let position = 0;
    try {
      while (!closed) {
        const { bytesRead } = await handle.read(buffer, 0, CHUNK, position);
        if (closed) return;
        if (bytesRead > 0) {
          position += bytesRead;
          splitter.write(buffer.subarray(0, bytesRead));
          continue;
        }
        if (draining) {
          splitter.flush();
          return;
        }
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, pollMs);
        });
        wake = undefined;
      }
    } finally {
      await handle.close();
    }
  })();
  // a file that cannot be read is the caller's to hear of, through drain
  loop.catch(() => undefined);
  return {
    async drain() {
      draining = true;
      wake?.();
      await loop;
    },
    close() {
      closed = true;
      wake?.();
    },
  };
}
