import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { redTeamEnv } from "@/lib/red-team/env";
import { runPodFor } from "@/lib/red-team/pod-run";

let broken: string | undefined;
afterAll(async () => {
  if (broken) await rm(broken, { recursive: true, force: true });
});

/**
 * A whole pod agent whose stock engine starts and answers /health but fails every request: no stock pass has a speed
 * to divide the candidate's by. The stock engine is the arena's, so the evaluation is void (refunded) with that
 * reason, rather than the agent ending without a result.
 */
describe("a stock engine whose timed passes measure no speed", () => {
  it("voids the evaluation, naming the pass and why", async () => {
    broken = await mkdtemp(join(tmpdir(), "stock-failing-"));
    await writeFile(
      join(broken, "launch.sh"),
      '#!/usr/bin/env bash\nexec "$ARENA_SIM_ENGINE" serve --mode failing --fail-rate 1\n',
    );
    await chmod(join(broken, "launch.sh"), 0o755);
    await chmod(broken, 0o755);
    const run = await runPodFor({
      mode: "stock",
      seed: "stock-without-speed",
      profile: "ci",
      task: "qwen3-8b",
      simSpeed: 50,
      env: redTeamEnv(process.env),
      stockEngineDir: broken,
    });
    expect(run.outcome, `${run.reason}\n${run.logTail ?? ""}`).toBe("void");
    expect(run.record).toBeNull();
    expect(run.reason).toMatch(/^the stock engine measured no speed in solo pass 1: none of its \d+ requests counted/);
  }, 300_000);
});
