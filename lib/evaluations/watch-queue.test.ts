import { describe, expect, it } from "vitest";
import type { QueueListing, QueueRow } from "../admin/list-queue";
import { QueueWatch, queueSignature } from "./watch-queue";

const row = (evaluationId: string, status: string, phase: string | null = null): QueueRow => ({
  evaluationId,
  submissionId: `s-${evaluationId}`,
  taskId: "qwen3-8b",
  split: "dev",
  profile: "ci",
  account: "alice",
  method: null,
  kind: "ngram",
  status,
  phase,
  attempt: status === "queued" ? 0 : 1,
  podId: null,
  leaseOwner: null,
  leaseExpiresAt: null,
  queuedAt: "2026-12-01T10:00:00.000Z",
  startedAt: null,
});
const listing = (rows: QueueRow[]): QueueListing => ({
  queued: rows.filter((r) => r.status === "queued"),
  running: rows.filter((r) => r.status !== "queued"),
});
const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe("QueueWatch", () => {
  it("reads the queue once per interval for all its listeners, tells each the queue as it stands, then each change", async () => {
    let state = listing([row("a", "running"), row("b", "queued")]);
    let reads = 0;
    const watch = new QueueWatch({
      read: async () => {
        reads++;
        return state;
      },
      everyMs: 10,
    });
    const first: QueueListing[] = [];
    const second: QueueListing[] = [];
    const releaseFirst = await watch.listen((l) => first.push(l));
    const releaseSecond = await watch.listen((l) => second.push(l));
    expect(first).toHaveLength(1);
    expect(second).toEqual([state]);

    await new Promise((r) => setTimeout(r, 60));
    // nothing moved: read again and again, told nothing new
    expect(reads).toBeGreaterThan(2);
    expect(first).toHaveLength(1);

    state = listing([row("a", "scored"), row("b", "running", "candidate-timed")].filter((r) => r.status !== "scored"));
    await until(() => first.length === 2 && second.length === 2);
    expect(first[1]).toEqual(state);

    releaseFirst();
    releaseSecond();
    expect(watch.listenerCount()).toBe(0);
    const settled = reads;
    await new Promise((r) => setTimeout(r, 50));
    // nobody listens: the queue is no longer read
    expect(reads).toBeLessThanOrEqual(settled + 1);
  });

  it("keeps going when a read fails, and a listener that throws does not stop the others", async () => {
    let fail = true;
    const watch = new QueueWatch({
      read: async () => {
        if (fail) throw new Error("database away");
        return listing([row("a", "queued")]);
      },
      everyMs: 10,
    });
    const heard: QueueListing[] = [];
    const releaseThrower = await watch.listen(() => {
      throw new Error("listener bug");
    });
    const release = await watch.listen((l) => heard.push(l));
    expect(heard).toEqual([]);
    fail = false;
    await until(() => heard.length === 1);
    release();
    releaseThrower();
  });
});

describe("queueSignature", () => {
  it("changes when an evaluation joins, leaves, starts or changes phase, and not otherwise", () => {
    const base = listing([row("a", "running", "candidate-timed"), row("b", "queued")]);
    expect(queueSignature(base)).toBe(
      queueSignature(listing([row("a", "running", "candidate-timed"), row("b", "queued")])),
    );
    expect(queueSignature(base)).not.toBe(
      queueSignature(listing([row("a", "running", "stock-timed"), row("b", "queued")])),
    );
    expect(queueSignature(base)).not.toBe(queueSignature(listing([row("a", "running", "candidate-timed")])));
  });
});
