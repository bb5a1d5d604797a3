import { hostname } from "node:os";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { freePort } from "../ops/services";
import type { PodBackend, PodHandle, PodInfo } from "../pods/types";
import { createSubmission } from "../submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";
import { claimEvaluation, ownerIsDeadHere, releaseLease, renewLease, workerIdFor } from "./lease";
import { moveEvaluation } from "./move-evaluation";
import { relayPodEvent } from "./relay-pod-event";
import { sweepOrphanPods } from "./sweep-orphan-pods";
import { throughBlips } from "./through-blips";

let ctx: ArenaTestContext;
let accountId: string;
const inline = gzipSync(
  writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\n"), mode: 0o755 }]),
).toString("base64");

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  ({ accountId } = await issueToken({ accountName: "re-attach" }));
});

afterAll(async () => {
  await ctx.teardown();
});

async function submit(): Promise<string> {
  const created = await createSubmission(
    { accountId, kind: "participant" },
    { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "other" }, profile: "ci" },
    { enqueue: async () => undefined },
  );
  return created.evaluationId;
}

/** An evaluation running on `podId` under attempt `attempt`, as run-evaluation leaves it once its pod started. */
async function running(podId: string, workerId = "test:1:a"): Promise<{ id: string; attempt: number }> {
  const id = await submit();
  const claim = await claimEvaluation(id, workerId);
  if (claim.kind !== "claimed") throw new Error(claim.kind);
  await moveEvaluation(id, "running", { attempt: claim.attempt, phase: "starting" });
  await db().evaluation.update({ where: { id }, data: { podId, podSeq: 0 } });
  return { id, attempt: claim.attempt };
}

const passEnded = (pass: number) => ({
  type: "pass-ended",
  data: { engine: "candidate", workload: "solo", pass, speed: 10, requests: 4, failed: 0, outputTokens: 99 },
  effects: {
    pass: {
      engine: "candidate",
      workload: "solo",
      pass,
      row: { speed: 10, requests: 4, failed: 0, outputTokens: 99, summary: {} },
    },
  },
});

describe("relayPodEvent", () => {
  it("stores each numbered event of the pod once, with its pass row, whatever is replayed or raced", async () => {
    const { id, attempt } = await running("pod-a");
    const relay = (podSeq: number, event = passEnded(podSeq)) =>
      relayPodEvent({ evaluationId: id, attempt, podId: "pod-a", podSeq, ...event });
    expect(await relay(1)).toMatchObject({ kind: "stored" });
    // a re-attached worker reading the pod's file again, and two workers racing on the same events, each relaying
    // them in the file's order as a worker does (one relayed out of order would be taken as a replay, by design)
    expect(await relay(1)).toEqual({ kind: "replayed" });
    const worker = async () => [await relay(2), await relay(3)];
    const raced = (await Promise.all([worker(), worker()])).flat();
    expect(raced.filter((r) => r.kind === "stored")).toHaveLength(2);
    expect(await relay(2)).toEqual({ kind: "replayed" });
    const events = await db().evaluationEvent.findMany({ where: { evaluationId: id, type: "pass-ended" } });
    expect(events.map((e) => (e.data as { pass: number }).pass).sort()).toEqual([1, 2, 3]);
    expect(await db().evaluationPass.count({ where: { evaluationId: id } })).toBe(3);
    expect((await db().evaluation.findUniqueOrThrow({ where: { id } })).podSeq).toBe(3);
  });

  it("moves a running evaluation to checking with the phase that starts the checks, its status event first", async () => {
    const { id, attempt } = await running("pod-c");
    const outcome = await relayPodEvent({
      evaluationId: id,
      attempt,
      podId: "pod-c",
      podSeq: 1,
      type: "phase",
      data: { phase: "checks-candidate", engine: "candidate" },
      effects: { phase: "checks-candidate", checking: true },
    });
    expect(outcome).toMatchObject({ kind: "stored" });
    const row = await db().evaluation.findUniqueOrThrow({ where: { id } });
    expect([row.status, row.phase]).toEqual(["checking", "checks-candidate"]);
    const tail = await db().evaluationEvent.findMany({ where: { evaluationId: id }, orderBy: { seq: "asc" } });
    expect(tail.slice(-2).map((e) => e.type)).toEqual(["status", "phase"]);
  });

  it("writes nothing for an attempt another worker took, a pod the evaluation no longer follows, or an ended one", async () => {
    const { id, attempt } = await running("pod-b");
    const relay = (over: Partial<Parameters<typeof relayPodEvent>[0]>) =>
      relayPodEvent({ evaluationId: id, attempt, podId: "pod-b", podSeq: 1, ...passEnded(1), ...over });
    expect(await relay({ attempt: attempt + 1 })).toEqual({ kind: "fenced" });
    expect(await relay({ podId: "pod-other" })).toEqual({ kind: "fenced" });
    await moveEvaluation(id, "cancelled", { attempt });
    expect(await relay({})).toEqual({ kind: "fenced" });
    expect(await db().evaluationPass.count({ where: { evaluationId: id } })).toBe(0);
  });
});

describe("the lease", () => {
  it("is renewed after it lapsed when nobody took it, and lost only to a newer attempt", async () => {
    const { id, attempt } = await running("pod-d");
    await db().evaluation.update({ where: { id }, data: { leaseExpiresAt: new Date(Date.now() - 60_000) } });
    expect(await renewLease(id, attempt)).toBe("ours");
    expect((await db().evaluation.findUniqueOrThrow({ where: { id } })).leaseExpiresAt!.getTime()).toBeGreaterThan(
      Date.now(),
    );
    await releaseLease(id, attempt);
    const taken = await claimEvaluation(id, "other:2:b");
    expect(taken).toEqual({ kind: "claimed", attempt: attempt + 1, resumed: true });
    expect(await renewLease(id, attempt)).toBe("taken");
    await moveEvaluation(id, "cancelled", {});
    expect(await renewLease(id, attempt + 1)).toBe("over");
  });

  it("of a dead worker of this host is taken at once; a live one's, or another host's, is waited out", async () => {
    const self = workerIdFor();
    // a pid that is not running: a process that just exited
    const dead = `${hostname()}:999999:zz`;
    expect(ownerIsDeadHere(dead, self)).toBe(true);
    expect(ownerIsDeadHere(`${hostname()}:${process.pid}:other`, self)).toBe(true);
    expect(ownerIsDeadHere(`${hostname()}:1:x`, self)).toBe(false);
    expect(ownerIsDeadHere(`elsewhere:999999:zz`, self)).toBe(false);
    expect(ownerIsDeadHere(self, self)).toBe(false);

    const { id, attempt } = await running("pod-e", dead);
    expect(await claimEvaluation(id, self)).toEqual({ kind: "claimed", attempt: attempt + 1, resumed: true });
    const live = await running("pod-f", `${hostname()}:1:x`);
    expect(await claimEvaluation(live.id, self)).toMatchObject({ kind: "busy" });
  });
});

describe("sweepOrphanPods", () => {
  it("keeps the pod a later attempt re-attached to, stops the others, the ended evaluations' and the overdue", async () => {
    const adopted = await running("pod-adopted");
    await db().evaluation.update({ where: { id: adopted.id }, data: { attempt: adopted.attempt + 2 } });
    const fresh = await running("pod-fresh");
    const over = await running("pod-over");
    await moveEvaluation(over.id, "cancelled", {});
    const overdue = await running("pod-overdue");
    const pods: PodInfo[] = [
      { podId: "pod-adopted", evaluationId: adopted.id, attempt: adopted.attempt, phase: "running" },
      { podId: "pod-stale", evaluationId: adopted.id, attempt: adopted.attempt + 1, phase: "running" },
      { podId: "pod-fresh", evaluationId: fresh.id, attempt: fresh.attempt, phase: "running" },
      // started, its id not yet recorded on the evaluation: the current attempt's, kept
      { podId: "pod-fresh-2", evaluationId: fresh.id, attempt: fresh.attempt, phase: "pending" },
      { podId: "pod-over", evaluationId: over.id, attempt: over.attempt, phase: "running" },
      {
        podId: "pod-overdue",
        evaluationId: overdue.id,
        attempt: overdue.attempt,
        phase: "running",
        deadlineAt: new Date(Date.now() - 3_600_000),
      },
    ];
    const stopped: string[] = [];
    // the backend as the sweep uses it: what it lists, and what it is told to stop
    const backend: PodBackend = {
      name: "local",
      list: async () => pods.filter((p) => !stopped.includes(p.podId)),
      stop: async (podId) => void stopped.push(podId),
      start: async () => expect.unreachable() as PodHandle,
      attach: async () => null,
    };
    expect((await sweepOrphanPods(backend)).sort()).toEqual(["pod-over", "pod-overdue", "pod-stale"]);
    expect(await sweepOrphanPods(backend)).toEqual([]);
  });
});

describe("throughBlips", () => {
  it("tries a write again while the datastore cannot be reached, and throws any other error at once", async () => {
    // what Prisma raises for a PostgreSQL that refuses connections
    const down = createPrismaClient(`postgresql://postgres@127.0.0.1:${await freePort()}/postgres`);
    const unreachable = await down.account.count().catch((error: unknown) => error);
    await down.$disconnect();
    let tries = 0;
    const pauses: number[] = [];
    const sleep = async (ms: number) => void pauses.push(ms);
    const result = await throughBlips(
      "a write",
      async () => {
        tries += 1;
        if (tries < 6) throw unreachable;
        return "written";
      },
      { sleep },
    );
    expect([result, tries]).toEqual(["written", 6]);
    expect(pauses).toEqual([500, 1000, 2000, 4000, 5000]);
    await expect(
      throughBlips("a refused write", async () => Promise.reject(new Error("unique")), { sleep }),
    ).rejects.toThrow("unique");
    let abandoned = false;
    const given = await throughBlips(
      "an abandoned write",
      async () => {
        abandoned = true;
        throw unreachable;
      },
      { sleep, abandoned: () => abandoned },
    );
    expect(given).toBeUndefined();
  });
});
