import { targetPath } from "./page-target";
import type { RenderedPage } from "./rendered-pages";
import type { PageToRender } from "./stale-final-pages";

export interface PrerenderDeps {
  /** Final evaluations whose page is not kept at its current version, the most recently written first. */
  stale(limit: number): Promise<PageToRender[]>;
  /** The page this process already holds at that version (a reader's render), if any. */
  held(path: string, version: string): RenderedPage | null;
  render(path: string): Promise<RenderedPage | null>;
  keep(evaluationId: string, version: string, page: RenderedPage): Promise<void>;
  /** Milliseconds since a reader last asked for a page. */
  sinceLastReader(): number;
  sleep(ms: number): Promise<void>;
}

/** A reader within this long is a reader now: the prerender then waits as long as each render took. */
export const READERS_RECENT_MS = 1000;
const BATCH = 16;

export interface PassOutcome {
  rendered: number;
  /** Taken from what this process already held, not rendered again. */
  held: number;
  /** The app gave no page to keep (not a 200 HTML answer): left until the evaluation's version moves. */
  refused: number;
}

/**
 * One pass over the final evaluations' pages not kept at their version: each is taken from this process's pages or
 * rendered, one at a time, and kept. While readers are being served, each render is followed by a pause as long as
 * it took, so that the prerender takes at most half a core from them. `refused` remembers, per process, the pages
 * the app would not give (id and version), so that one is not asked for again on every pass.
 */
export async function prerenderPass(deps: PrerenderDeps, refused: Set<string>): Promise<PassOutcome> {
  const outcome: PassOutcome = { rendered: 0, held: 0, refused: 0 };
  const due = (await deps.stale(BATCH + refused.size)).filter((p) => !refused.has(`${p.evaluationId}@${p.version}`));
  for (const { evaluationId, version } of due.slice(0, BATCH)) {
    const path = targetPath({ kind: "evaluation", id: evaluationId });
    const held = deps.held(path, version);
    const started = performance.now();
    const page = held ?? (await deps.render(path));
    const took = performance.now() - started;
    if (!page) {
      refused.add(`${evaluationId}@${version}`);
      outcome.refused += 1;
      continue;
    }
    await deps.keep(evaluationId, version, page);
    if (held) outcome.held += 1;
    else outcome.rendered += 1;
    if (!held && deps.sinceLastReader() < READERS_RECENT_MS) await deps.sleep(took);
  }
  return outcome;
}

/** How long the prerender waits when nothing is due, and after a pass that failed. */
export const IDLE_MS = 5000;
export const AFTER_FAILURE_MS = 30_000;

/** Passes until `stopped()`, pausing while nothing is due; a failed pass is reported and tried again later. */
export async function prerenderLoop(
  deps: PrerenderDeps,
  stopped: () => boolean,
  report: (error: unknown) => void,
): Promise<void> {
  const refused = new Set<string>();
  while (!stopped()) {
    try {
      const outcome = await prerenderPass(deps, refused);
      if (outcome.rendered + outcome.held === 0) await deps.sleep(IDLE_MS);
    } catch (error) {
      report(error);
      await deps.sleep(AFTER_FAILURE_MS);
    }
  }
}
