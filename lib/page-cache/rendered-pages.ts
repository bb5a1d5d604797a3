/** One rendered answer as the app gave it: its status, the headers it is served with again, and its body. */
export interface RenderedPage {
  status: number;
  headers: [string, string][];
  /**
   * The body as the app rendered it, never compressed here: Next drops a proxy answer's own `content-encoding` and
   * compresses what the proxy returns, so a body gzipped here would reach the reader gzipped twice.
   */
  body: Uint8Array;
}

interface Entry {
  version: string;
  page: RenderedPage;
}

/**
 * Rendered pages by key, each with the version it was rendered at, within a byte budget (the least recently served
 * go first). A key holds one version: a newer one replaces it. Readers who miss the same key and version at once
 * share one render.
 */
export class RenderedPages {
  private readonly entries = new Map<string, Entry>();
  private readonly rendering = new Map<string, Promise<RenderedPage | null>>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  get size(): number {
    return this.entries.size;
  }

  get heldBytes(): number {
    return this.bytes;
  }

  /** Whether a page is kept for `key`, at any version. */
  holds(key: string): boolean {
    return this.entries.has(key);
  }

  /** The page kept for `key` at `version`, refreshed as the most recently served. */
  get(key: string, version: string): RenderedPage | null {
    const entry = this.entries.get(key);
    if (!entry || entry.version !== version) return null;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.page;
  }

  /**
   * Renders `key` at `version` (one render for every reader who asks meanwhile) and keeps what `render` returned;
   * null (not a page to keep) and failures are not kept.
   */
  fill(key: string, version: string, render: () => Promise<RenderedPage | null>): Promise<RenderedPage | null> {
    const flight = `${key}\u0000${version}`;
    const pending = this.rendering.get(flight);
    if (pending) return pending;
    const done = render()
      .then((page) => {
        if (page) this.keep(key, version, page);
        return page;
      })
      .finally(() => this.rendering.delete(flight));
    this.rendering.set(flight, done);
    return done;
  }

  private keep(key: string, version: string, page: RenderedPage): void {
    const size = page.body.byteLength;
    if (size > this.maxBytes) return;
    this.drop(key);
    this.entries.set(key, { version, page });
    this.bytes += size;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= entry.page.body.byteLength;
    }
  }

  private drop(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.page.body.byteLength;
  }
}
