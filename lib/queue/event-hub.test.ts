import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createRedis } from "./connection";
import { EventHub } from "./event-hub";

// The test Redis (REDIS_URL): a real subscriber and a real publisher, as an engine that reached Redis would be.
const publisher = createRedis();
const drops: { channel: string; why: string; dropped: number }[] = [];
const hub = new EventHub(undefined, { maxMessageBytes: 1024, onDrop: (d) => drops.push(d) });
const uncaught: unknown[] = [];
const onUncaught = (error: unknown) => uncaught.push(error);

beforeAll(() => {
  process.on("uncaughtException", onUncaught);
});

afterAll(async () => {
  process.off("uncaughtException", onUncaught);
  await hub.close();
  await publisher.quit();
});

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
const notice = z.object({ seq: z.number().int().positive() });

describe("EventHub", () => {
  it("drops what is not JSON, too large, or of another shape, without throwing, and still delivers good messages", async () => {
    const channel = `hub-test:${randomBytes(4).toString("hex")}`;
    const received: { seq: number }[] = [];
    const release = await hub.listen(channel, notice, (m) => received.push(m));

    await publisher.publish(channel, "{not json");
    await publisher.publish(channel, JSON.stringify({ type: "status", data: { status: "scored", specscore: 99 } }));
    await publisher.publish(channel, JSON.stringify({ seq: -1 }));
    await publisher.publish(channel, `{"seq":1,"pad":"${"x".repeat(2000)}"}`);
    await publisher.publish(channel, Buffer.from([0xff, 0xfe, 0x00, 0x7b]));
    await publisher.publish(channel, JSON.stringify({ seq: 7 }));
    for (let i = 0; i < 100 && received.length === 0; i++) await later(10);

    expect(received).toEqual([{ seq: 7 }]);
    expect(uncaught).toEqual([]);
    // one line per channel per interval, counting what it dropped
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatchObject({ channel, why: "a message that is not JSON", dropped: 1 });
    await release();
  });

  it("keeps delivering to the other listeners when one throws", async () => {
    const channel = `hub-test:${randomBytes(4).toString("hex")}`;
    const received: number[] = [];
    const releaseThrowing = await hub.listen(channel, notice, () => {
      throw new Error("listener bug");
    });
    const release = await hub.listen(channel, notice, (m) => received.push(m.seq));
    await publisher.publish(channel, JSON.stringify({ seq: 1 }));
    await publisher.publish(channel, JSON.stringify({ seq: 2 }));
    for (let i = 0; i < 100 && received.length < 2; i++) await later(10);
    expect(received).toEqual([1, 2]);
    expect(uncaught).toEqual([]);
    await releaseThrowing();
    await release();
    expect(hub.channelCount()).toBe(0);
  });
});
