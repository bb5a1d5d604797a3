import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import { logger } from "../logger";
import { createRedis } from "../queue/connection";
import { eventHub, resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { queuedSubmission } from "../testing/queued-submission";
import { serveHandler } from "../testing/serve-handler";
import { readSse } from "../testing/sse-client";
import { appendEvent, eventsChannel } from "./append-event";

let ctx: ArenaTestContext;
let server: Awaited<ReturnType<typeof serveHandler>>;
let submissionId: string;
let evaluationId: string;
// What an engine that reached Redis would hold: a connection of its own.
const intruder = createRedis();
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

beforeAll(async () => {
  process.on("uncaughtException", onUncaught);
  ctx = await setupArenaTestContext();
  const created = await queuedSubmission("forged-viewer");
  submissionId = created.submissionId;
  evaluationId = created.evaluationId;
  server = await serveHandler((request) => {
    const id = new URL(request.url).pathname.split("/")[3]!;
    return events(request, { params: Promise.resolve({ id }) });
  });
});

afterAll(async () => {
  process.off("uncaughtException", onUncaught);
  await intruder.quit();
  await server.close();
  await resetEventHubForTests();
  await ctx.teardown();
});

describe("live events with forged messages on the evaluation's channel", () => {
  it("sends a viewer only what PostgreSQL holds: garbage and forged events are dropped, real ones still arrive", async () => {
    const warn = vi.spyOn(logger, "warn");
    const url = `${server.url}/api/submissions/${submissionId}/events`;
    const reading = readSse(url, { until: (e) => e.event === "phase", timeoutMs: 20_000 });
    const channel = eventsChannel(evaluationId);
    const subscribers = async () => Number(((await intruder.pubsub("NUMSUB", channel)) as [string, number])[1]);
    for (let i = 0; i < 200 && (await subscribers()) === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(eventHub().channelCount()).toBe(1);
    expect(await subscribers()).toBe(1);

    const forgedStatus = { type: "status", data: { status: "scored", specscore: 99 } };
    await intruder.publish(channel, "{not json");
    await intruder.publish(channel, JSON.stringify(forgedStatus));
    // shaped like a notice: it only makes the hub read the log, which holds nothing numbered 2 or 99 yet
    await intruder.publish(channel, JSON.stringify({ seq: 99, ...forgedStatus, createdAt: new Date().toISOString() }));
    await intruder.publish(channel, JSON.stringify({ seq: 2, ...forgedStatus }));
    await new Promise((r) => setTimeout(r, 200));
    await appendEvent(evaluationId, "phase", { phase: "candidate-timed" });

    // the queue standing is the server's own, unnumbered: not part of the log this test guards
    const received = (await reading).events.filter((e) => e.event !== "queue");
    expect(received.map((e) => e.event)).toEqual(["state", "status", "phase"]);
    expect(received[1]).toMatchObject({ id: 1, data: { status: "queued" } });
    expect(received[2]).toMatchObject({ id: 2, data: { phase: "candidate-timed" } });
    expect(JSON.stringify(received.slice(1))).not.toMatch(/specscore|scored/);
    expect(uncaught).toEqual([]);
    expect(warn).toHaveBeenCalledWith(
      "event hub: dropped what Redis delivered",
      expect.objectContaining({ channel, why: "a message that is not JSON" }),
    );
    warn.mockRestore();
  });
});
