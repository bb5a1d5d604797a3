import { describe, expect, it } from "vitest";
import { medianSeconds, type QueueItem, queueStanding } from "./queue-estimate";

const now = new Date("2026-12-01T10:00:00Z");
const at = (minutesAgo: number) => new Date(now.getTime() - minutesAgo * 60_000).toISOString();
const queued = (id: string, minutesAgo: number, profile = "full"): QueueItem => ({
  evaluationId: id,
  status: "queued",
  profile,
  queuedAt: at(minutesAgo),
  startedAt: null,
});
const running = (id: string, startedMinutesAgo: number, profile = "full"): QueueItem => ({
  evaluationId: id,
  status: "running",
  profile,
  queuedAt: at(startedMinutesAgo + 1),
  startedAt: at(startedMinutesAgo),
});
const minutesFromNow = (iso: string | undefined) => (Date.parse(iso!) - now.getTime()) / 60_000;
const durations = new Map([
  ["full", { medianSeconds: 3600, runs: 12 }],
  ["smoke", { medianSeconds: 300, runs: 4 }],
]);

describe("queueStanding", () => {
  it("counts the place in the queue oldest first, and waits for the running one and each one ahead in turn", () => {
    const items = [queued("c", 5), running("a", 20), queued("b", 10, "smoke"), queued("d", 1)];
    const standing = queueStanding({ evaluationId: "c", items, durations, slots: 1, now })!;
    expect([standing.position, standing.ahead, standing.running, standing.slots]).toEqual([2, 1, 1, 1]);
    // a has 40 min left, then b (smoke) takes 5: c starts in 45 min and, a full run itself, ends an hour later
    expect(minutesFromNow(standing.estimate?.startsAt)).toBeCloseTo(45, 6);
    expect(minutesFromNow(standing.estimate?.finishesAt)).toBeCloseTo(105, 6);
    expect(standing.estimate?.basis).toEqual([
      { profile: "full", medianSeconds: 3600, runs: 12 },
      { profile: "smoke", medianSeconds: 300, runs: 4 },
    ]);
    expect(standing.unmeasured).toEqual([]);
  });

  it("fills every free slot first, then the slot that frees up soonest", () => {
    const items = [running("a", 50), queued("b", 10), queued("c", 9), queued("d", 8)];
    // two slots: one is free now (b starts at once), a frees its slot in 10 min (c), then b's ends at 60 (d)
    const standing = queueStanding({ evaluationId: "d", items, durations, slots: 2, now })!;
    expect(standing.position).toBe(3);
    expect(minutesFromNow(standing.estimate?.startsAt)).toBeCloseTo(60, 6);
    const next = queueStanding({ evaluationId: "b", items, durations, slots: 2, now })!;
    expect(minutesFromNow(next.estimate?.startsAt)).toBe(0);
  });

  it("expects a run past its profile's median to end any moment, never in the past", () => {
    const items = [running("a", 90), queued("b", 1)];
    const standing = queueStanding({ evaluationId: "b", items, durations, slots: 1, now })!;
    expect(minutesFromNow(standing.estimate?.startsAt)).toBe(0);
  });

  it("gives no estimate, naming the profile, while a profile it waits on has never been measured", () => {
    const items = [running("a", 5, "ci"), queued("b", 1)];
    const standing = queueStanding({ evaluationId: "b", items, durations, slots: 1, now })!;
    expect(standing.position).toBe(1);
    expect(standing.estimate).toBeNull();
    expect(standing.unmeasured).toEqual(["ci"]);
  });

  it("has no standing for an evaluation that is not queued", () => {
    const items = [running("a", 5), queued("b", 1)];
    expect(queueStanding({ evaluationId: "a", items, durations, slots: 1, now })).toBeNull();
    expect(queueStanding({ evaluationId: "zz", items, durations, slots: 1, now })).toBeNull();
  });
});

describe("medianSeconds", () => {
  it("takes the middle value, or the mean of the two middle ones, and nothing of nothing", () => {
    expect(medianSeconds([30, 10, 20])).toBe(20);
    expect(medianSeconds([40, 10, 20, 30])).toBe(25);
    expect(medianSeconds([])).toBeNull();
  });
});
