import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import { redis } from "../queue/connection";
import { eventHub, resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { queuedSubmission } from "../testing/queued-submission";
import { serveHandler } from "../testing/serve-handler";
import { readSse } from "../testing/sse-client";
import { appendEvent, eventsChannel } from "./append-event";
import { moveEvaluation } from "./move-evaluation";

let ctx: ArenaTestContext;
let server: Awaited<ReturnType<typeof serveHandler>>;
let submissionId: string;
let evaluationId: string;

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  const created = await queuedSubmission("watcher");
  submissionId = created.submissionId;
  evaluationId = created.evaluationId;
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

const url = () => `${server.url}/api/submissions/${submissionId}/events`;
const numsub = async () =>
  Number(((await redis().pubsub("NUMSUB", eventsChannel(evaluationId))) as [string, number])[1]);

describe("GET /api/submissions/{id}/events", () => {
  it("sends the state first, then every event in order, live ones included", async () => {
    const reading = readSse(url(), { until: (_e, all) => all.filter((x) => x.id !== null).length >= 4 });
    // Let the client subscribe, then publish live.
    for (let i = 0; i < 50 && eventHub().channelCount() === 0; i++) await new Promise((r) => setTimeout(r, 20));
    await appendEvent(evaluationId, "phase", { phase: "candidate-timed" });
    await appendEvent(evaluationId, "pass-started", { workload: "solo", pass: 1 });
    await appendEvent(evaluationId, "pass-ended", { workload: "solo", pass: 1, speed: 150 });
    const { events: received } = await reading;
    expect(received[0]!.event).toBe("state");
    expect((received[0]!.data as { evaluation: { status: string } }).evaluation.status).toBe("queued");
    const numbered = received.filter((e) => e.id !== null);
    expect(numbered.map((e) => e.id)).toEqual([1, 2, 3, 4]);
    expect(numbered.map((e) => e.event)).toEqual(["status", "phase", "pass-started", "pass-ended"]);
  });

  it("releases the Redis subscription when the client leaves", async () => {
    for (let i = 0; i < 50 && (await numsub()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await numsub()).toBe(0);
    expect(eventHub().channelCount()).toBe(0);
  });

  it("replays what a reconnecting client missed after its Last-Event-ID, then ends on a final status", async () => {
    await appendEvent(evaluationId, "pass-progress", { workload: "team", pass: 1, elapsedSeconds: 1 });
    await appendEvent(evaluationId, "pass-progress", { workload: "team", pass: 1, elapsedSeconds: 2 });
    await moveEvaluation(evaluationId, "cancelled", { reason: "test over" });
    const { events: received, ended } = await readSse(url(), { lastEventId: 3 });
    expect(ended).toBe(true);
    expect(received[0]!.event).toBe("state");
    const numbered = received.filter((e) => e.id !== null);
    expect(numbered.map((e) => e.id)).toEqual([4, 5, 6, 7]);
    expect(numbered.at(-1)!.event).toBe("status");
    expect((numbered.at(-1)!.data as { status: string }).status).toBe("cancelled");
  });
});
