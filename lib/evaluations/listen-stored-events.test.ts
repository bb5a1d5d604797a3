import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { eventHub, resetEventHubForTests } from "../queue/event-hub";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { queuedSubmission } from "../testing/queued-submission";
import { until } from "../testing/until";
import { appendEvent, appendEventIn, type StoredEvent } from "./append-event";
import { listenStoredEvents } from "./listen-stored-events";

let ctx: ArenaTestContext;
let evaluationId: string;

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  const created = await queuedSubmission("lost-notice");
  evaluationId = created.evaluationId;
});

afterAll(async () => {
  await resetEventHubForTests();
  await ctx.teardown();
});

/** Stores an event the way appendEvent does, but publishes no notice: one lost while Redis restarted. */
const storeWithoutNotice = (type: string, data: object) =>
  db().$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM "Evaluation" WHERE id = ${evaluationId} FOR UPDATE`;
    return appendEventIn(tx, evaluationId, type, data);
  });

describe("live events whose notice never arrives", () => {
  it("are still sent, in order, once the log is looked at: a final status is never left waiting for a next event", async () => {
    const received: StoredEvent[] = [];
    const release = await listenStoredEvents(evaluationId, (e) => received.push(e), eventHub(), 200);
    try {
      await storeWithoutNotice("log", { level: "info", message: "noticed by nobody" });
      await appendEvent(evaluationId, "phase", { phase: "checks-stock" });
      await storeWithoutNotice("status", { status: "scored" });
      await until(async () => (received.length >= 3 ? true : undefined), 10_000, 50);
      expect(received.map((e) => e.type)).toEqual(["log", "phase", "status"]);
      expect(received.map((e) => e.seq)).toEqual([2, 3, 4]);
    } finally {
      await release();
    }
  });
});
