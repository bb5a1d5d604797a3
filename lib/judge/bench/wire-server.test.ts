import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createJudgeAgent } from "../client/http-agent";
import { streamChat } from "../client/stream-chat";
import { wordChunks } from "../testing/scripted-server";
import { bareClientRun } from "./bare-client";
import { startWireServer, type WireLogEntry } from "./wire-server";

// the fidelity benchmark's truth and floor, kept honest: the judge's client and a bare socket both read every event
describe("the benchmark's wire server and bare client", () => {
  let server: Awaited<ReturnType<typeof startWireServer>>;
  const dispatcher = createJudgeAgent();
  beforeAll(async () => {
    server = await startWireServer((seed) => ({ ttftMs: 15, chunks: wordChunks(5 + (seed % 4), seed, 3) }));
  });
  afterAll(async () => {
    server.close();
    await dispatcher.destroy();
  });
  const log = async () => (await (await request(`${server.url}/log`, { dispatcher })).body.json()) as WireLogEntry[];

  it("streams the programmed reply to the judge's client, timed on both sides", async () => {
    const out = await streamChat(`${server.url}/v1/chat/completions`, { seed: 6 }, { dispatcher });
    expect(out.error).toBeNull();
    expect(out.sawDone).toBe(true);
    expect(out.text).toBe(
      wordChunks(7, 6, 3)
        .map((c) => c.text)
        .join(""),
    );
    expect(out.chunkMs).toHaveLength(7);
    const entry = (await log()).find((l) => l.seed === 6)!;
    expect(entry.writesNs).toHaveLength(7);
    // the server read the request after the judge wrote it, and wrote its first chunk about ttftMs later (Node's
    // timers run on a millisecond clock cached at the loop's turn, so one may fire up to a millisecond early)
    expect(Number(BigInt(entry.receivedNs)) / 1e6).toBeGreaterThan(out.sentMs);
    expect(Number(BigInt(entry.writesNs[0]!) - BigInt(entry.receivedNs)) / 1e6).toBeGreaterThan(13);
    expect(out.firstTokenMs!).toBeGreaterThan(Number(BigInt(entry.writesNs[0]!)) / 1e6);
  });

  it("stamps a stamped reply's chunks in their text and logs when each write returned", async () => {
    const stamped = await startWireServer((seed) => ({ ttftMs: 5, chunks: wordChunks(4, seed, 2), stamped: true }));
    try {
      const res = await request(`${stamped.url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ seed: 3 }),
        headers: { "content-type": "application/json" },
        dispatcher,
      });
      const events = (await res.body.text())
        .split("\n\n")
        .map((e) => e.replace(/^data: /, ""))
        .filter((e) => e.startsWith("{"))
        .map((e) => JSON.parse(e) as { stamp_ns?: string; choices: { delta: { content?: string } }[] });
      const stamps = events.filter((e) => e.stamp_ns !== undefined).map((e) => e.stamp_ns!);
      expect(stamps.map((t) => t.length)).toEqual([20, 20, 20, 20]);
      expect(events.map((e) => e.choices[0]!.delta.content ?? "").join("")).toBe(
        wordChunks(4, 3, 2)
          .map((c) => c.text)
          .join(""),
      );
      const entry = ((await (await request(`${stamped.url}/log`, { dispatcher })).body.json()) as WireLogEntry[]).find(
        (l) => l.seed === 3,
      )!;
      expect(entry.writesNs.map((t) => BigInt(t))).toEqual(stamps.map((t) => BigInt(t)));
      expect(entry.sentNs).toHaveLength(4);
      for (const [i, t] of entry.sentNs!.entries()) expect(BigInt(t) >= BigInt(entry.writesNs[i]!)).toBe(true);
    } finally {
      stamped.close();
    }
  });

  it("lets a bare socket count each content event of back-to-back replies", async () => {
    const replies = await bareClientRun(server.url, 2, 0.3, 1000);
    expect(replies.length).toBeGreaterThanOrEqual(4);
    const entries = new Map((await log()).map((l) => [l.seed, l]));
    for (const r of replies) {
      expect(r.eventsNs).toHaveLength(5 + (r.seed % 4));
      expect(entries.get(r.seed)?.writesNs).toHaveLength(r.eventsNs.length);
    }
  });
});
