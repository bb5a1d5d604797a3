import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import type { SseEvent } from "../http/sse";
import { redis } from "../queue/connection";
import { resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { queuedSubmission } from "../testing/queued-submission";
import { serveHandler } from "../testing/serve-handler";
import { readSse } from "../testing/sse-client";
import { appendEvent, eventsChannel, type StoredEvent } from "./append-event";
import { LiveEventFanout, liveEventFanout } from "./live-event-fanout";
import { moveEvaluation } from "./move-evaluation";

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("LiveEventFanout", () => {
  it("reads each evaluation's log once for all its viewers, hands them one object per event, and stops with the last", async () => {
    const reads: { evaluationId: string; emit: (e: StoredEvent) => void; released: number }[] = [];
    const fanout = new LiveEventFanout(async (evaluationId, emit) => {
      const read = { evaluationId, emit, released: 0 };
      reads.push(read);
      return async () => {
        read.released += 1;
      };
    });
    const seen: SseEvent[][] = [[], [], []];
    const leave = await Promise.all(
      seen.map((into, i) =>
        fanout.join("ev-1", (e) => {
          if (i === 1) throw new Error("a viewer's bug");
          into.push(e);
        }),
      ),
    );
    expect(reads).toHaveLength(1);
    reads[0]!.emit({ seq: 4, type: "phase", data: { phase: "warmup" }, createdAt: "2026-01-01T00:00:00.000Z" });
    expect(seen[0]).toEqual([{ id: 4, event: "phase", data: { phase: "warmup", at: "2026-01-01T00:00:00.000Z" } }]);
    // the same object: serialised once for every stream (sse.ts encodeSse)
    expect(seen[2]![0]).toBe(seen[0]![0]);
    expect(fanout.viewerCounts()).toEqual(new Map([["ev-1", 3]]));

    await leave[0]!();
    await leave[0]!();
    await leave[1]!();
    expect(reads[0]!.released).toBe(0);
    await leave[2]!();
    expect(reads[0]!.released).toBe(1);
    expect(fanout.viewerCounts().size).toBe(0);

    const again = await fanout.join("ev-1", () => undefined);
    expect(reads).toHaveLength(2);
    await again();
  });

  it("lets a viewer who joins while the read starts wait for it, and forgets a read that failed", async () => {
    let calls = 0;
    const fanout = new LiveEventFanout(async () => {
      calls += 1;
      await later(20);
      if (calls === 1) throw new Error("database down");
      return async () => undefined;
    });
    const joining = [fanout.join("ev-2", () => undefined), fanout.join("ev-2", () => undefined)];
    await expect(Promise.all(joining)).rejects.toThrow("database down");
    expect(calls).toBe(1);
    expect(fanout.viewerCounts().size).toBe(0);
    const leave = await fanout.join("ev-2", () => undefined);
    expect(calls).toBe(2);
    await leave();
  });
});

describe("200 live viewers of one evaluation, coming and going", () => {
  let ctx: ArenaTestContext;
  let server: Awaited<ReturnType<typeof serveHandler>>;
  let submissionId: string;
  let evaluationId: string;

  beforeAll(async () => {
    // two hundred viewers from one address here; in life, from as many
    ctx = await setupArenaTestContext({ API_REQUESTS_PER_MINUTE_PER_ADDRESS: "100000" });
    const created = await queuedSubmission("crowd");
    submissionId = created.submissionId;
    evaluationId = created.evaluationId;
    await moveEvaluation(evaluationId, "running", { phase: "candidate-timed" });
    server = await serveHandler((request) => {
      const id = new URL(request.url).pathname.split("/")[3]!;
      return events(request, { params: Promise.resolve({ id }) });
    });
  });

  afterAll(async () => {
    await server.close();
    await resetEventHubForTests();
    await ctx.teardown();
  });

  const numsub = async () =>
    Number(((await redis().pubsub("NUMSUB", eventsChannel(evaluationId))) as [string, number])[1]);

  it("sends every viewer every event once and in order across reconnects, over one Redis subscription", async () => {
    const url = `${server.url}/api/submissions/${submissionId}/events`;
    const viewer = async (n: number) => {
      const ids: number[] = [];
      let connections = 0;
      for (;;) {
        connections += 1;
        // most viewers leave after a few events and come back with Last-Event-ID; a third stay to the end
        const leaveAfter = n % 3 === 0 || connections > 4 ? Number.POSITIVE_INFINITY : 3 + ((n * 7 + connections) % 9);
        let taken = 0;
        const { events: got, ended } = await readSse(url, {
          lastEventId: ids.at(-1),
          until: (e) => e.id !== null && ++taken >= leaveAfter,
          timeoutMs: 60_000,
        });
        ids.push(...got.flatMap((e) => (e.id === null ? [] : [e.id])));
        if (ended) return { ids, connections };
        await later((n % 5) * 10);
      }
    };
    const crowd = Array.from({ length: 200 }, (_, n) => viewer(n));
    for (let i = 0; i < 500 && (liveEventFanout().viewerCounts().get(evaluationId) ?? 0) < 150; i++) await later(20);
    // a viewer is counted as it joins, before the feed's SUBSCRIBE is answered: on crowded cores that took longer
    // than the first append below (its NUMSUB read 0)
    for (let i = 0; i < 500 && (await numsub()) < 1; i++) await later(20);

    const subscriptions: number[] = [];
    for (let i = 0; i < 40; i++) {
      await appendEvent(evaluationId, "pass-progress", { workload: "solo", pass: 1, elapsedSeconds: i });
      if (i % 5 === 0) subscriptions.push(await numsub());
      await later(15);
    }
    await moveEvaluation(evaluationId, "cancelled", { reason: "test over" });
    const viewers = await Promise.all(crowd);

    const last = viewers[0]!.ids.at(-1)!;
    expect(last).toBeGreaterThanOrEqual(42);
    for (const { ids } of viewers) expect(ids).toEqual(Array.from({ length: last }, (_, i) => i + 1));
    expect(viewers.filter((v) => v.connections > 1).length).toBeGreaterThan(100);
    expect(subscriptions).toEqual(subscriptions.map(() => 1));
    for (let i = 0; i < 50 && (await numsub()) > 0; i++) await later(20);
    expect(await numsub()).toBe(0);
    expect(liveEventFanout().viewerCounts().size).toBe(0);
  }, 120_000);
});
