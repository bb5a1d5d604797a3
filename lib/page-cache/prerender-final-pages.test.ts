import { describe, expect, it } from "vitest";
import { type PrerenderDeps, prerenderLoop, prerenderPass, READERS_RECENT_MS } from "./prerender-final-pages";
import type { RenderedPage } from "./rendered-pages";
import type { PageToRender } from "./stale-final-pages";

const page = (text: string): RenderedPage => ({
  status: 200,
  headers: [["content-type", "text/html"]],
  body: new TextEncoder().encode(text),
});

function fakes(due: PageToRender[], options: { readerMsAgo?: number; refuse?: string[]; held?: string[] } = {}) {
  const kept = new Map<string, string>();
  const rendered: string[] = [];
  const sleeps: number[] = [];
  const deps: PrerenderDeps = {
    stale: async (limit) => due.filter((p) => kept.get(p.evaluationId) !== p.version).slice(0, limit),
    held: (path, version) => (options.held?.includes(path) ? page(`${path} held at ${version}`) : null),
    render: async (path) => {
      rendered.push(path);
      const started = performance.now();
      while (performance.now() - started < 2) {
        // a render that takes a measurable time
      }
      return options.refuse?.includes(path) ? null : page(path);
    },
    keep: async (id, version) => {
      kept.set(id, version);
    },
    sinceLastReader: () => options.readerMsAgo ?? Number.POSITIVE_INFINITY,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  };
  return { deps, kept, rendered, sleeps };
}

const due = (n: number): PageToRender[] =>
  Array.from({ length: n }, (_, i) => ({ evaluationId: `e${i}`, version: `scored@${i}` }));

describe("the prerender of final evaluations' pages", () => {
  it("keeps every page due at its version, taking one this process holds rather than rendering it again", async () => {
    const f = fakes(due(3), { held: ["/evaluations/e1"] });
    expect(await prerenderPass(f.deps, new Set())).toEqual({ rendered: 2, held: 1, refused: 0 });
    expect(f.rendered).toEqual(["/evaluations/e0", "/evaluations/e2"]);
    expect([...f.kept]).toEqual([
      ["e0", "scored@0"],
      ["e1", "scored@1"],
      ["e2", "scored@2"],
    ]);
    expect(f.sleeps).toEqual([]);
    // nothing left: the next pass renders nothing
    expect(await prerenderPass(f.deps, new Set())).toEqual({ rendered: 0, held: 0, refused: 0 });
  });

  it("works through a backlog a batch a pass, the pages the app refuses asked for once per version", async () => {
    const f = fakes(due(40), { refuse: ["/evaluations/e0"] });
    const refused = new Set<string>();
    const first = await prerenderPass(f.deps, refused);
    expect(first.refused).toBe(1);
    expect(first.rendered).toBe(15);
    let passes = 1;
    while ((await prerenderPass(f.deps, refused)).rendered > 0) passes += 1;
    expect(f.kept.size).toBe(39);
    expect(f.rendered.filter((p) => p === "/evaluations/e0")).toHaveLength(1);
    expect(passes).toBe(3);
  });

  it("while readers are served, waits after each render as long as it took (at most half a core)", async () => {
    const f = fakes(due(3), { readerMsAgo: READERS_RECENT_MS / 2, held: ["/evaluations/e2"] });
    await prerenderPass(f.deps, new Set());
    expect(f.sleeps).toHaveLength(2);
    for (const ms of f.sleeps) expect(ms).toBeGreaterThanOrEqual(2);
  });

  it("reports a failed pass and goes on after a pause", async () => {
    const f = fakes(due(2));
    let calls = 0;
    const stale = f.deps.stale;
    f.deps.stale = async (limit) => {
      calls += 1;
      if (calls === 1) throw new Error("database unreachable");
      return stale(limit);
    };
    const reports: string[] = [];
    await prerenderLoop(
      f.deps,
      () => calls >= 3,
      (error) => reports.push(String(error)),
    );
    expect(reports).toEqual(["Error: database unreachable"]);
    expect(f.kept.size).toBe(2);
    expect(f.sleeps).toEqual([30_000, 5000]);
  });
});
