import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { EvaluationsSequencer } from "./evaluations-sequencer";

const root = "/repo";
const project = (name: string, groupOrder: number) => ({ name, config: { sequence: { groupOrder }, isolate: true } });
const unit = project("unit", 0);
const evaluations = project("evaluations", 1);
const spec = (p: ReturnType<typeof project>, file: string) =>
  ({ project: p, moduleId: `${root}/${file}` }) as unknown as TestSpecification;

/** A vitest context whose cache holds these files' last results (`project:path` → seconds) and every file's size. */
function sequencer(results: Record<string, number>, sizes: Record<string, number>) {
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) =>
        key in results ? { failed: false, duration: results[key]! * 1000 } : undefined,
      getFileStats: (key: string) => ({ size: sizes[key.split(":")[1]!] ?? 1 }),
    },
  };
  return new EvaluationsSequencer(ctx as unknown as Vitest);
}

const files = [
  spec(evaluations, "lib/calibration/think-search-cli.e2e.test.ts"), // 30 s, the largest file below
  spec(unit, "lib/a.test.ts"),
  spec(evaluations, "lib/ops/image-tree/image-tree.e2e.test.ts"), // 236 s
  spec(evaluations, "lib/new/unmeasured.e2e.test.ts"),
  spec(evaluations, "lib/kit/kit.e2e.test.ts"), // 214 s
];
const sizes = {
  "lib/calibration/think-search-cli.e2e.test.ts": 9000,
  "lib/ops/image-tree/image-tree.e2e.test.ts": 3000,
  "lib/new/unmeasured.e2e.test.ts": 2000,
  "lib/kit/kit.e2e.test.ts": 1000,
};
const paths = (specs: TestSpecification[]) => specs.map((s) => s.moduleId.slice(root.length + 1));

describe("EvaluationsSequencer", () => {
  it("starts a fresh checkout's whole evaluations longest first by their measured times, an unmeasured one first", async () => {
    expect(paths(await sequencer({}, sizes).sort(files))).toEqual([
      "lib/a.test.ts",
      "lib/new/unmeasured.e2e.test.ts",
      "lib/ops/image-tree/image-tree.e2e.test.ts",
      "lib/kit/kit.e2e.test.ts",
      "lib/calibration/think-search-cli.e2e.test.ts",
    ]);
  });

  it("leaves the order to vitest once the checkout has results of its own", async () => {
    const results = {
      "evaluations:lib/calibration/think-search-cli.e2e.test.ts": 400,
      "evaluations:lib/ops/image-tree/image-tree.e2e.test.ts": 10,
      "evaluations:lib/new/unmeasured.e2e.test.ts": 20,
      "evaluations:lib/kit/kit.e2e.test.ts": 30,
    };
    expect(paths(await sequencer(results, sizes).sort(files))).toEqual([
      "lib/a.test.ts",
      "lib/calibration/think-search-cli.e2e.test.ts",
      "lib/kit/kit.e2e.test.ts",
      "lib/new/unmeasured.e2e.test.ts",
      "lib/ops/image-tree/image-tree.e2e.test.ts",
    ]);
  });
});
