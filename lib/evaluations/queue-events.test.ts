import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as adminQueueEvents } from "@/app/api/admin/queue/events/route";
import { GET as events } from "@/app/api/submissions/[id]/events/route";
import { writeTar } from "../engine-archive/write-tar";
import { resetEventHubForTests } from "../queue/event-hub";
import { createSubmission } from "../submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { serveHandler } from "../testing/serve-handler";
import { readSse } from "../testing/sse-client";
import { issueToken } from "../tokens/issue-token";
import { moveEvaluation } from "./move-evaluation";
import type { QueueStanding } from "./queue-estimate";

let ctx: ArenaTestContext;
let server: Awaited<ReturnType<typeof serveHandler>>;
const queued: { id: string; evaluationId: string }[] = [];

beforeAll(async () => {
  ctx = await setupArenaTestContext();
  const { accountId } = await issueToken({ accountName: "queue watcher" });
  const inline = gzipSync(
    writeTar([{ path: "launch.sh", data: new TextEncoder().encode("#!/bin/sh\n"), mode: 0o755 }]),
  ).toString("base64");
  for (let i = 0; i < 3; i++) {
    queued.push(
      await createSubmission(
        { accountId, kind: "participant" },
        { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { kind: "other" }, profile: "ci" },
        { enqueue: async () => undefined },
      ),
    );
    // the queue's order is the time each was queued
    await new Promise((r) => setTimeout(r, 5));
  }
  server = await serveHandler((request) => {
    const path = new URL(request.url).pathname;
    if (path === "/api/admin/queue/events") return adminQueueEvents(request, { params: Promise.resolve({}) });
    return events(request, { params: Promise.resolve({ id: path.split("/")[3]! }) });
  });
});

afterAll(async () => {
  await server.close();
  await resetEventHubForTests();
  await ctx.teardown();
});

describe("a queued evaluation's events stream", () => {
  it("pushes its place in the queue as it connects and again each time an evaluation ahead of it leaves", async () => {
    const last = queued[2]!;
    const positions = (all: { event: string; data: unknown }[]) =>
      all.filter((e) => e.event === "queue").map((e) => (e.data as QueueStanding).position);
    const reading = readSse(`${server.url}/api/submissions/${last.id}/events`, {
      until: (_e, all) => positions(all).includes(1),
      timeoutMs: 30_000,
    });
    for (let i = 0; i < 100; i++) {
      await new Promise((r) => setTimeout(r, 50));
      if (i === 20) {
        // the first one is taken by a worker and finishes; then the second is cancelled
        await moveEvaluation(queued[0]!.evaluationId, "fetching");
        await moveEvaluation(queued[0]!.evaluationId, "failed", { reason: "its engine did not start" });
      }
      if (i === 80) await moveEvaluation(queued[1]!.evaluationId, "cancelled", { reason: "cancelled" });
    }
    const { events: received } = await reading;
    const seen = positions(received);
    expect(seen[0]).toBe(3);
    expect(seen.at(-1)).toBe(1);
    // never up, and never a standing without its estimate's reason: no ci run has been scored here yet
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    const standing = received.find((e) => e.event === "queue")!;
    expect(standing.id).toBeNull();
    expect(standing.data).toMatchObject({ ahead: 2, running: 0, slots: 1, estimate: null, unmeasured: ["ci"] });
  });

  it("refuses the operators' live queue to anyone not signed in as an operator", async () => {
    const response = await fetch(`${server.url}/api/admin/queue/events`);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
  });
});
