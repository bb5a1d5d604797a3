import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { EVALUATION_FILE_SECONDS } from "./evaluation-file-seconds.ts";
import { longestFirst } from "./longest-first.ts";

/**
 * Vitest's order, except for the whole evaluations when this checkout has run none of them yet (a fresh clone, as CI
 * is): vitest then starts the largest files first, and `npm test` ran its 15 files, three at a time, 26 s longer than
 * longest first (the last to start was a 214 s file). With their times from a run here, vitest orders them itself.
 */
export class EvaluationsSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const root = this.ctx.config.root;
    const path = (spec: TestSpecification) => relative(root, spec.moduleId);
    const evaluations = sorted.filter((spec) => spec.project.name === "evaluations");
    const ranRecently = evaluations.some((spec) => this.ctx.cache.getFileTestResults(`evaluations:${path(spec)}`));
    if (evaluations.length === 0 || ranRecently) return sorted;
    const ordered = longestFirst(evaluations, (spec) => EVALUATION_FILE_SECONDS[path(spec)]);
    let next = 0;
    return sorted.map((spec) => (spec.project.name === "evaluations" ? ordered[next++]! : spec));
  }
}
