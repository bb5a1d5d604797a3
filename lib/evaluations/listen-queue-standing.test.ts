import { describe, expect, it } from "vitest";
import type { QueueListing, QueueRow } from "../admin/list-queue";
import { listenQueueStanding } from "./listen-queue-standing";
import type { QueueStanding } from "./queue-estimate";
import { QueueWatch } from "./watch-queue";

const row = (evaluationId: string, status: string, minutesAgo: number): QueueRow => ({
  evaluationId,
  submissionId: `s-${evaluationId}`,
  taskId: "qwen3-8b",
  split: "dev",
  profile: "ci",
  account: "alice",
  method: null,
  kind: "ngram",
  status,
  phase: null,
  attempt: 0,
  podId: null,
  leaseOwner: null,
  leaseExpiresAt: null,
  queuedAt: new Date(Date.now() - minutesAgo * 60_000).toISOString(),
  startedAt: status === "queued" ? null : new Date(Date.now() - minutesAgo * 60_000).toISOString(),
});
const listing = (rows: QueueRow[]): QueueListing => ({
  queued: rows.filter((r) => r.status === "queued"),
  running: rows.filter((r) => r.status !== "queued"),
});

describe("listenQueueStanding", () => {
  it("tells a queued evaluation its place at once and each time one ahead leaves, until it leaves itself", async () => {
    let state = listing([row("a", "running", 3), row("b", "queued", 2), row("c", "queued", 1)]);
    const watch = new QueueWatch({ read: async () => state, everyMs: 10 });
    const heard: QueueStanding[] = [];
    const release = await listenQueueStanding("c", (s) => heard.push(s), {
      watch,
      durations: async () => new Map([["ci", { medianSeconds: 120, runs: 3 }]]),
      slots: 1,
    });
    expect(heard.map((s) => [s.position, s.ahead, s.running])).toEqual([[2, 1, 1]]);
    expect(heard[0]!.estimate).not.toBeNull();

    state = listing([row("b", "running", 2), row("c", "queued", 1)]);
    await waitFor(() => heard.length === 2);
    expect(heard.map((s) => s.position)).toEqual([2, 1]);

    state = listing([row("c", "running", 1)]);
    await new Promise((r) => setTimeout(r, 60));
    // out of the queue: its status events say the rest
    expect(heard).toHaveLength(2);
    await release();
    expect(watch.listenerCount()).toBe(0);
  });
});

async function waitFor(check: () => boolean) {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}
