/** A push-driven async iterable: producers push, one consumer iterates, `end()` finishes it. */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((result: IteratorResult<T>) => void) | undefined;
  private ended = false;

  push(item: T): void {
    if (this.ended) return;
    const w = this.waiting;
    if (w) {
      this.waiting = undefined;
      w({ value: item, done: false });
    } else this.items.push(item);
  }

  end(): void {
    this.ended = true;
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ value: undefined, done: true });
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        const item = this.items.shift();
        if (item !== undefined) return Promise.resolve({ value: item, done: false });
        if (this.ended) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => {
          this.waiting = resolve;
        });
      },
    };
  }
}

/** Splits a byte stream into lines, carrying a partial line across chunks. */
export function lineSplitter(onLine: (line: string) => void): { write(chunk: Buffer | string): void; flush(): void } {
  let rest = "";
  return {
    write(chunk) {
      const text = rest + chunk.toString();
      const lines = text.split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) onLine(line);
    },
    flush() {
      if (rest) onLine(rest);
      rest = "";
    },
  };
}
