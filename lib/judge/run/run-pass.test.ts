import type { Dispatcher } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getTask } from "@/lib/protocol";
import { qwen3Tokenizer } from "@/lib/tokenizer/packaged-qwen3";
import { createJudgeAgent } from "../client/http-agent";
import type { JudgeEvent } from "../events";
import type { Pool, Session } from "../pool/schema";
import type { RequestRecord } from "../records";
import { type PassPlan, planEvaluation, saltedSystemPrompt } from "../sessions/plan";
import { fixturePool, testProfile } from "../testing/fixture-pool";
import {
  deterministicScript,
  type Script,
  type ScriptedServer,
  startScriptedServer,
  wordChunks,
} from "../testing/scripted-server";
import { inlineTokenCounter, type TokenCounter } from "../tokens/token-counter";
import { promptEstimate, windowRule } from "../window";
import { runPass } from "./run-pass";

let counter: TokenCounter;
let dispatcher: Dispatcher;
const servers: ScriptedServer[] = [];

beforeAll(() => {
  counter = inlineTokenCounter(qwen3Tokenizer());
  dispatcher = createJudgeAgent();
});
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await dispatcher.close();
});

async function serve(script: Script): Promise<ScriptedServer> {
  const s = await startScriptedServer(script);
  servers.push(s);
  return s;
}

function plan(
  workload: "solo" | "team" | "busy",
  queues: Session[][],
  pass: number | "warmup" = 0,
  salt = "salt0",
): PassPlan {
  return { workload, pass, lanes: queues.length, interleave: workload === "solo" ? 1 : 2, salt, queues };
}

const play = (
  server: ScriptedServer,
  p: PassPlan,
  pool: Pool,
  o: { passSeconds?: number; thinkScale?: number; events?: JudgeEvent[] } = {},
) =>
  runPass(p, {
    url: server.url,
    servedName: "target",
    task: "qwen3-8b",
    profile: testProfile({
      passSeconds: { solo: o.passSeconds ?? 1, team: o.passSeconds ?? 1, busy: o.passSeconds ?? 1 },
    }),
    pool,
    evaluationSeed: "eval-seed",
    dispatcher,
    counter,
    thinkScale: o.thinkScale ?? 0,
    onEvent: (e) => o.events?.push(e),
  });

const byLane = (records: RequestRecord[]) => {
  const lanes = new Map<number, RequestRecord[]>();
  for (const r of records) lanes.set(r.lane, [...(lanes.get(r.lane) ?? []), r]);
  return lanes;
};

/**
 * A figure against what the scripted server was programmed to do: on a loaded machine its timers fire late, never
 * early, so the bounds are wide on the slow side (the checks against the server's own writes are the exact ones).
 */
function asProgrammed(value: number, low: number, high: number) {
  expect(value).toBeGreaterThan(low);
  expect(value).toBeLessThan(high);
}

/**
 * How late a lane may send its next request here: on two loaded cores an event loop stalls for tens of milliseconds
 * at times (the judge's own lateness on a quiet core is the fidelity benchmark's, lib/judge/bench/fidelity.ts); a lane
 * that waited on something it should not would be seconds late.
 */
const SEND_SLACK_MS = 1_000;

describe("a pass against a scripted server over a real socket", () => {
  it("sends the protocol's request body", async () => {
    const pool = fixturePool();
    const server = await serve(() => ({ ttftMs: 5, chunks: wordChunks(3, 1, 2) }));
    const agent = pool.sessions.find((s) => s.family === "agent")!;
    const chat = pool.sessions.find((s) => s.family === "chat")!;
    await play(server, plan("team", [[agent], [chat]], "warmup"), pool);
    expect(server.requests).toHaveLength(2);
    for (const { body } of server.requests) {
      expect(body).toMatchObject({
        model: "target",
        stream: true,
        stream_options: { include_usage: true },
        temperature: 0.7,
        top_p: 0.8,
        top_k: 20,
        chat_template_kwargs: { enable_thinking: false },
        max_tokens: 64,
      });
      expect(Number.isInteger(body.seed)).toBe(true);
      expect(body).not.toHaveProperty("ignore_eos");
      const tools = (body.messages as { role: string }[])[0]!.role === "system" && body.tools;
      if ((body.messages as { content: string }[])[1]!.content.startsWith("agent")) {
        expect(tools).toEqual(pool.apps.get("agent-app")!.tools);
        expect(body.tool_choice).toBe("none");
      } else {
        expect(body).not.toHaveProperty("tools");
        expect(body).not.toHaveProperty("tool_choice");
      }
    }
  });

  /** The truth of what the server did: its write times, on the same monotonic clock, relative to the pass. */
  const serverTruth = (server: ScriptedServer, originNs: bigint, from: number) =>
    server.requests.slice(from).map((q) => ({
      receivedMs: Number(q.receivedNs - originNs) / 1e6,
      endMs: Number((q.endNs ?? q.writesNs.at(-1)!) - originNs) / 1e6,
      writesMs: q.writesNs.map((t) => Number(t - originNs) / 1e6),
    }));

  it("solo: speed, TTFT, TPOT and ITL equal what the server did (and what it was programmed to do)", async () => {
    const pool = fixturePool({ turns: 50 });
    // 10 one-token chunks: first after 40 ms, then every 10 ms: 130 ms a request, 10/0.13 tokens/s as programmed
    const server = await serve(() => ({
      ttftMs: 40,
      chunks: wordChunks(10, 7, 10),
      usage: { promptTokens: 200, cachedTokens: 50 },
    }));
    const events: JudgeEvent[] = [];
    const r = await play(server, plan("solo", [pool.sessions.slice(0, 3)]), pool, { passSeconds: 2.5, events });
    const s = r.summary;
    expect(s.counted).toBeGreaterThanOrEqual(8);
    expect(s.failed).toBe(0);
    // hand-computed from the server's own write times: tokens over (last write − sent), summed over requests
    const truth = serverTruth(server, r.originNs, 0);
    const requestMs = r.records.reduce((a, x, i) => a + (truth[i]!.writesMs.at(-1)! - x.sentMs), 0);
    const handSpeed = (10 * r.records.length) / (requestMs / 1000);
    expect(Math.abs(s.speed! / handSpeed - 1)).toBeLessThan(0.03);
    asProgrammed(s.speed! / (10 / 0.13), 0.5, 1.05);
    const handTtft = r.records.map((x, i) => truth[i]!.writesMs[0]! - x.sentMs).sort((a, b) => a - b);
    expect(Math.abs(s.ttftMs.p50! - handTtft[Math.floor(handTtft.length / 2)]!)).toBeLessThan(5);
    asProgrammed(s.ttftMs.p50!, 38, 80);
    asProgrammed(s.tpotMs.p50!, 9, 20);
    asProgrammed(s.itlMs.p50!, 6, 20);
    expect(s.cacheHit.tokenWeighted).toBeCloseTo(0.25, 10);
    expect(s.cacheHit.perRequest).toBeCloseTo(0.25, 10);
    for (const rec of r.records) expect(rec.outputTokens).toBe(10);
    // lateness is each send against its schedule, as the records have them: late, never early
    const late = r.records.map((x) => x.sentMs - x.scheduledMs);
    expect(s.latenessMs.max).toBe(Math.max(...late));
    expect(Math.min(...late)).toBeGreaterThanOrEqual(0);
    expect(s.latenessMs.max!).toBeLessThan(SEND_SLACK_MS);
    // progress: started, ticks with elapsed and counts, ended with the figures
    expect(events[0]!.type).toBe("pass-started");
    const ticks = events.filter((e) => e.type === "pass-progress");
    expect(ticks.length).toBeGreaterThanOrEqual(1);
    const tick = ticks[0] as Extract<JudgeEvent, { type: "pass-progress" }>;
    expect(tick.elapsedSeconds).toBeGreaterThan(0.9);
    expect(tick.passSeconds).toBe(2.5);
    expect(tick.requestsDone).toBeGreaterThan(3);
    expect(tick.tokensPerSecond).toBeGreaterThan(30);
    expect(events[events.length - 1]).toMatchObject({ type: "pass-ended", summary: { speed: s.speed } });
  });

  it("team: tokens per second while every lane is busy", async () => {
    const pool = fixturePool({ turns: 50 });
    const server = await serve(() => ({ ttftMs: 40, chunks: wordChunks(10, 3, 10) }));
    const q = pool.sessions;
    const r = await play(
      server,
      plan("team", [
        [q[0]!, q[1]!],
        [q[2]!, q[3]!],
      ]),
      pool,
      { passSeconds: 1.5 },
    );
    // hand-computed from the server's writes: tokens made while both lanes had a request in flight (each request
    // from its arrival to its response's end; a write's token made over the time since the request's previous write
    // or its arrival), over that time
    const truth = serverTruth(server, r.originNs, 0);
    const spans = truth.map((t) => [t.receivedMs, t.endMs] as const);
    const edges = spans
      .flatMap(([a, b]) => [[a, 1] as const, [b, -1] as const])
      .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    let live = 0;
    let openAt = 0;
    const busy: [number, number][] = [];
    for (const [t, d] of edges) {
      live += d;
      if (live === 2 && d === 1) openAt = t;
      if (live === 1 && d === -1) busy.push([openAt, t]);
    }
    const busyMs = busy.reduce((a, [x, y]) => a + (y - x), 0);
    const inside = (a: number, b: number) =>
      busy.reduce((sum, [x, y]) => sum + Math.max(0, Math.min(b, y) - Math.max(a, x)), 0);
    const tokens = truth
      .flatMap((t) => t.writesMs.map((w, i) => [i === 0 ? t.receivedMs : t.writesMs[i - 1]!, w] as const))
      .reduce(
        (sum, [a, b]) => sum + (b > a ? inside(a, b) / (b - a) : busy.some(([x, y]) => b >= x && b <= y) ? 1 : 0),
        0,
      );
    const hand = tokens / (busyMs / 1000);
    expect(Math.abs(r.summary.speed! / hand - 1)).toBeLessThan(0.05);
    asProgrammed(r.summary.speed! / (2 * (10 / 0.13)), 0.5, 1.05);
    expect(r.summary.allBusySeconds!).toBeGreaterThan(1.1);
  });

  it("lanes, interleave and think times give the intended concurrency and order", async () => {
    const pool = fixturePool({ turns: 20, thinkSeconds: 0.2 });
    let live = 0;
    let peak = 0;
    const server = await serve(() => ({ ttftMs: 20, chunks: wordChunks(5, 1, 10) }));
    const origin = server.requests;
    const q = pool.sessions;
    const queues = [
      [q[0]!, q[1]!],
      [q[2]!, q[3]!],
      [q[4]!, q[5]!],
    ];
    const r = await play(server, plan("team", queues), pool, { passSeconds: 2, thinkScale: 1 });
    // concurrency from the records: never more than one request per lane, and all three lanes at once
    const events = r.records.flatMap((x) => [
      [x.sentMs, 1],
      [x.doneMs, -1],
    ]) as [number, number][];
    events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [, d] of events) {
      live += d;
      peak = Math.max(peak, live);
    }
    expect(peak).toBe(3);
    expect(origin.length).toBe(r.records.length);
    for (const [lane, recs] of byLane(r.records)) {
      for (let i = 1; i < recs.length; i++) expect(recs[i]!.sentMs).toBeGreaterThanOrEqual(recs[i - 1]!.doneMs);
      // interleave: the lane's two sessions alternate, each turn after the previous one's reply plus 200 ms think
      expect(recs.map((x) => x.sessionId)).toEqual(recs.map((_, i) => queues[lane]![i % 2]!.id));
      expect(recs.map((x) => x.turn)).toEqual(recs.map((_, i) => Math.floor(i / 2)));
      for (let i = 2; i < recs.length; i++) {
        const gap = recs[i]!.sentMs - recs[i - 2]!.doneMs;
        expect(gap).toBeGreaterThanOrEqual(199.5);
        expect(recs[i]!.sentMs - recs[i]!.scheduledMs).toBeGreaterThanOrEqual(0);
        expect(recs[i]!.sentMs - recs[i]!.scheduledMs).toBeLessThan(SEND_SLACK_MS);
        expect(recs[i]!.scheduledMs).toBeCloseTo(Math.max(recs[i - 2]!.doneMs + 200, recs[i - 1]!.doneMs), 6);
      }
      expect(recs.length).toBeGreaterThanOrEqual(6);
    }
    // the closed loop: each turn's history holds the previous turns' replies
    const rec = r.records.find((x) => x.turn === 2)!;
    expect(rec.messages.filter((m) => m.role === "assistant").map((m) => m.content)).toEqual(
      r.records.filter((x) => x.sessionId === rec.sessionId && x.turn < 2).map((x) => x.text),
    );
  });

  it("salting changes the shared prefixes between passes and nothing else", async () => {
    const pool = fixturePool({ turns: 20 });
    const q = pool.sessions;
    const queues = [
      [q[0]!, q[50]!],
      [q[1]!, q[51]!],
    ];
    const s1 = await serve(deterministicScript({ ttftMs: 5, gapMs: 3 }));
    const s2 = await serve(deterministicScript({ ttftMs: 5, gapMs: 3 }));
    // long enough for five turns a lane with the client's work slowed by a loaded machine
    const a = await play(s1, plan("team", queues, 0, "aaaa"), pool, { passSeconds: 2 });
    const b = await play(s2, plan("team", queues, 1, "bbbb"), pool, { passSeconds: 2 });
    const la = byLane(a.records);
    const lb = byLane(b.records);
    let compared = 0;
    for (const [lane, ra] of la) {
      const rb = lb.get(lane)!;
      for (let i = 0; i < Math.min(ra.length, rb.length); i++) {
        const x = s1.requests.find((r) => r.body.seed === ra[i]!.seed && r.index >= 0)!;
        const y = s2.requests.find((r) => r.body.seed === rb[i]!.seed)!;
        const mx = x.body.messages as { role: string; content: string }[];
        const my = y.body.messages as { role: string; content: string }[];
        const app = pool.apps.get(ra[i]!.app)!;
        expect(mx[0]!.content).toBe(saltedSystemPrompt(app.systemPrompt, "aaaa"));
        expect(my[0]!.content).toBe(saltedSystemPrompt(app.systemPrompt, "bbbb"));
        expect({ ...x.body, messages: mx.slice(1) }).toEqual({ ...y.body, messages: my.slice(1) });
        compared++;
      }
    }
    expect(compared).toBeGreaterThanOrEqual(10);
    // and the evaluation's plan salts every pass differently
    const ev = planEvaluation(fixturePool({ perFamily: 200 }), {
      seed: "s",
      task: getTask("qwen3-8b"),
      profile: testProfile(),
    });
    expect(ev.workloads.team.passes[0]!.salt).not.toBe(ev.workloads.team.passes[1]!.salt);
  });

  it("the same seeds replay the same pass against a deterministic engine", async () => {
    const pool = fixturePool({ perFamily: 200, turns: 6 });
    const ev = planEvaluation(pool, { seed: "replay", task: getTask("qwen3-8b"), profile: testProfile() });
    const p = ev.workloads.team.passes[1]!;
    const s1 = await serve(deterministicScript({ ttftMs: 4, gapMs: 2 }));
    const s2 = await serve(deterministicScript({ ttftMs: 9, gapMs: 4 }));
    // long enough for four turns a lane with the client's work slowed by a loaded machine
    const a = await play(s1, p, pool, { passSeconds: 2 });
    const b = await play(s2, p, pool, { passSeconds: 2 });
    const la = byLane(a.records);
    const lb = byLane(b.records);
    let compared = 0;
    for (const [lane, ra] of la) {
      const rb = lb.get(lane)!;
      const n = Math.min(ra.length, rb.length);
      expect(n).toBeGreaterThanOrEqual(4);
      for (let i = 0; i < n; i++) {
        const x = ra[i]!;
        const y = rb[i]!;
        expect([y.sessionId, y.turn, y.seed, y.maxTokens, y.text]).toEqual([
          x.sessionId,
          x.turn,
          x.seed,
          x.maxTokens,
          x.text,
        ]);
        expect(y.messages).toEqual(x.messages);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(10);
  });

  it("a truncated, failed or over-budget stream is not counted", async () => {
    const pool = fixturePool({ turns: 3 });
    const kinds = ["truncate", "error-event", "error-data", "http-500", "over", "ok"] as const;
    const server = await serve(({ index }) => {
      const kind = kinds[index % kinds.length]!;
      if (kind === "over") return { ttftMs: 2, chunks: wordChunks(70, index, 1) };
      if (kind === "ok") return { ttftMs: 2, chunks: wordChunks(6, index, 1) };
      return { ttftMs: 2, chunks: wordChunks(6, index, 1), fail: kind };
    });
    const r = await play(server, plan("solo", [pool.sessions.slice(0, 40)]), pool, { passSeconds: 1.5 });
    const recs = r.records;
    expect(recs.length).toBeGreaterThanOrEqual(6);
    recs.forEach((x, i) => {
      const kind = kinds[i % kinds.length]!;
      expect(x.counted, `${i} ${kind}`).toBe(kind === "ok");
      if (kind === "truncate") expect(x.error).toMatch(/without \[DONE\]/);
      if (kind === "error-event") expect(x.error).toMatch(/stream error event/);
      if (kind === "error-data") expect(x.error).toMatch(/scripted error/);
      if (kind === "http-500") expect(x.error).toMatch(/^http 500/);
      if (kind === "over") {
        expect(x.sawDone).toBe(true);
        expect(x.outputTokens).toBe(70);
      }
    });
    expect(r.summary.failed).toBe(recs.filter((x) => !x.counted).length);
    // a failed session gives its slot to the next in the queue
    expect(recs[1]!.sessionId).not.toBe(recs[0]!.sessionId);
  });

  it("cuts the history exactly at the window rule's boundary", async () => {
    // the turns' counts below are set by hand, and the pool vouches for them as the counter's
    const pool: Pool = { ...fixturePool({ turns: 3, maxTokens: 64 }), countedBy: { fingerprint: counter.fingerprint } };
    const server = await serve(() => ({ ttftMs: 1, chunks: wordChunks(8, 5, 1) }));
    const tok = qwen3Tokenizer();
    const salt = "cut";
    const S = tok.encode(saltedSystemPrompt(pool.apps.get("chat-app")!.systemPrompt, salt)).length;
    const rule = windowRule(getTask("qwen3-8b").maxModelLen);
    // the largest raw prompt whose estimate plus 64 fits 40,960
    let rMax = 0;
    while (promptEstimate(rMax + 1, rule) + 64 <= rule.maxModelLen) rMax++;
    const chats = pool.sessions.filter((s) => s.family === "chat");
    const make = (base: Session, extra: number): Session => ({
      ...base,
      turns: base.turns.map((t, i) => ({ ...t, tokens: i === 0 ? 10 : i === 1 ? rMax - (S + 10 + 8) + extra : 10 })),
    });
    const fits = make(chats[0]!, 0);
    const over = make(chats[1]!, 1);
    // each session in a lane of its own, with time for its turns' 40,000-token histories on a loaded machine
    const r = await play(server, plan("solo", [[fits], [over]], 0, salt), pool, { passSeconds: 2 });
    const t1 = (id: string) => {
      const found = r.records.find((x) => x.sessionId === id && x.turn === 1);
      if (!found)
        throw new Error(`no turn 1 of ${id} in the pass: ${r.records.map((x) => `${x.sessionId}#${x.turn}`)}`);
      return found;
    };
    expect(t1(fits.id).windowCut).toBe(false);
    expect(t1(fits.id).promptEstimate + 64).toBe(rule.maxModelLen);
    expect(t1(fits.id).messages).toHaveLength(4);
    expect(t1(over.id).windowCut).toBe(true);
    // first message kept, then what fits half the window: here only the newest turn
    expect(t1(over.id).messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(t1(over.id).messages[1]!.content).toBe(over.turns[1]!.content);
  });
});
