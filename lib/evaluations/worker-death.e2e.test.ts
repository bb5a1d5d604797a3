import { chmod, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { packDirectory } from "../engine-archive/pack-directory";
import { createSubmission } from "../submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { type SpawnedWorker, simulatedWorkerEnv, spawnWorker } from "../testing/spawn-worker";
import { until } from "../testing/until";
import { issueToken } from "../tokens/issue-token";
import { repoRoot } from "./runtime";

let ctx: ArenaTestContext;
let dataDir: string;
const workers: SpawnedWorker[] = [];

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  dataDir = await mkdtemp(join(tmpdir(), "arena-worker-death-"));
  await chmod(dataDir, 0o755);
});

afterAll(async () => {
  for (const w of workers) await w.kill();
  await ctx.teardown();
  await rm(dataDir, { recursive: true, force: true }).catch(() => undefined);
});

describe("a worker that dies in the middle of a pass", () => {
  it("leaves the evaluation to finish under a new attempt, or end void and refunded: never stuck, never charged twice", async () => {
    const env = simulatedWorkerEnv(ctx, dataDir);
    const first = spawnWorker(env);
    workers.push(first);
    const { accountId } = await issueToken({ accountName: "crash-test" });
    const inline = (await packDirectory(join(repoRoot(), "lib/sim-engine/engines/ngram"))).toString("base64");
    const { evaluationId } = await createSubmission(
      { accountId, kind: "participant" },
      { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "ngram" }, profile: "ci" },
    );

    // Wait for the candidate's team pass to be under way, then kill the worker outright.
    await until(async () => {
      const e = await db().evaluationEvent.findFirst({
        where: { evaluationId, type: "pass-started", data: { path: ["workload"], equals: "team" } },
      });
      return e ?? undefined;
    }, 240_000);
    await first.kill("SIGKILL");
    const killedAt = await db().evaluation.findUniqueOrThrow({ where: { id: evaluationId } });
    expect(killedAt.status).toBe("running");
    expect(killedAt.attempt).toBe(1);

    const second = spawnWorker(env);
    workers.push(second);
    const done = await until(async () => {
      const e = await db().evaluation.findUnique({ where: { id: evaluationId }, include: { ledger: true } });
      return e && ["scored", "failed", "void", "cancelled"].includes(e.status) ? e : undefined;
    }, 420_000).catch(async (error: unknown) => {
      const events = await db().evaluationEvent.findMany({ where: { evaluationId }, orderBy: { seq: "asc" } });
      console.error(events.map((e) => `${e.seq} ${e.type} ${JSON.stringify(e.data).slice(0, 160)}`).join("\n"));
      console.error(second.output.slice(-60).join("\n"));
      throw error;
    });

    expect(done.attempt).toBeGreaterThanOrEqual(2);
    const charges = done.ledger.filter((l) => l.kind === "charge");
    expect(charges).toHaveLength(1);
    if (done.status === "void") {
      expect(done.refunded).toBe(true);
      expect(done.ledger.filter((l) => l.kind === "refund")).toHaveLength(1);
    } else {
      expect(done.status).toBe("scored");
      expect(done.ledger.filter((l) => l.kind === "refund")).toHaveLength(0);
    }
    const resumed = await db().evaluationEvent.findFirst({
      where: { evaluationId, type: "log", data: { path: ["message"], string_contains: "resumed as attempt 2" } },
    });
    expect(resumed).not.toBeNull();
    // No pod of any attempt is left running once the evaluation is over.
    const pods = await readdir(join(dataDir, "local-pods", "pods")).catch(() => [] as string[]);
    expect(pods.filter((p) => p.endsWith(".json"))).toEqual([]);
  }, 900_000);
});
