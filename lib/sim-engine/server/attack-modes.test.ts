import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultToyModel } from "../model/toy-model";
import type { Mode } from "../modes";
import { DEVICE_TOTAL_MIB } from "../scheduler/device";
import { type SimEngine, type SimEngineOptions, startSimEngine } from "../sim-engine";
import { postChat, promptLogprobs, streamChat } from "../testing/client";

const SAMPLING = { temperature: 0.7, top_p: 0.8, top_k: 20 };
const QUESTIONS = [
  "Tell me about volcanoes.",
  "How do I learn to swim?",
  "What makes a good story?",
  "Describe the moon.",
];
const open: SimEngine[] = [];
async function start(mode: Mode, extra: SimEngineOptions = {}): Promise<SimEngine> {
  const e = await startSimEngine({ mode, simSpeed: 500, ...extra });
  open.push(e);
  return e;
}
let stock: SimEngine;
beforeAll(async () => {
  stock = await start("stock");
});
afterAll(async () => {
  for (const e of open) await e.close();
});

const content = (r: { body: Record<string, unknown> }) =>
  (r.body.choices as { message: { content: string } }[])[0]!.message.content;

/** The judge's scoring request: the stock engine's prompt_logprobs over a reply after its question. */
async function score(question: string, reply: string): Promise<{ logprob: number; rank: number }[]> {
  const r = await postChat(stock.url, {
    messages: [
      { role: "user", content: question },
      { role: "assistant", content: reply },
    ],
    prompt_logprobs: 0,
    continue_final_message: true,
    add_generation_prompt: false,
    max_tokens: 1,
  });
  const pl = r.body.prompt_logprobs as (Record<string, { logprob: number; rank: number }> | null)[];
  const n = defaultToyModel().tokenizer.encode(reply).length;
  return pl.slice(pl.length - n).map((e) => Object.values(e!)[0]!);
}

async function notFirstShare(engine: SimEngine, replies: number): Promise<number> {
  let tokens = 0;
  let notFirst = 0;
  for (let i = 0; i < replies; i++) {
    const q = QUESTIONS[i % QUESTIONS.length]!;
    const reply = content(
      await postChat(engine.url, {
        messages: [{ role: "user", content: q }],
        ...SAMPLING,
        seed: 100 + i,
        max_tokens: 200,
      }),
    );
    for (const t of await score(q, reply)) {
      tokens++;
      if (t.rank > 1) notFirst++;
    }
  }
  return notFirst / tokens;
}

describe("attack modes, as the judge's checks see them", () => {
  it("greedy decoding drives the first-choice share to zero; other sampling parameters lower it", async () => {
    const honest = await notFirstShare(stock, 16);
    expect(honest).toBeGreaterThan(0.08);
    expect(honest).toBeLessThan(0.2);
    expect(await notFirstShare(await start("greedy"), 8)).toBeLessThan(0.02);
    expect(await notFirstShare(await start("other-sampling"), 16)).toBeLessThan(honest - 0.03);
  });

  it("the quantized target differs from the honest one by far more than 1e-3 nats a token, and A/A by nothing", async () => {
    const quantized = await start("quantized");
    const other = await start("stock");
    const messages = [
      { role: "user", content: "Name three rivers in Europe." },
      { role: "assistant", content: "The Danube, the Rhine and the Seine are three well-known rivers in Europe." },
    ];
    const lp = (e: SimEngine) => promptLogprobs(e.url, messages);
    const a = await lp(stock);
    const b = await lp(other);
    const q = await lp(quantized);
    const mad = (x: number[], y: number[]) => x.reduce((s, v, i) => s + Math.abs(v - y[i]!), 0) / x.length;
    expect(mad(a, b)).toBe(0);
    expect(mad(a, q)).toBeGreaterThan(0.01);
    expect(mad(a, q)).toBeLessThan(0.5);
  });

  it("cuts replies at half their budget, reporting a natural stop", async () => {
    const cut = await start("cut-replies");
    for (let i = 0; i < 4; i++) {
      const r = await postChat(cut.url, {
        messages: [{ role: "user", content: QUESTIONS[i]! }],
        ...SAMPLING,
        seed: i,
        max_tokens: 40,
      });
      const usage = r.body.usage as { completion_tokens: number };
      expect(usage.completion_tokens).toBeLessThanOrEqual(20);
      expect((r.body.choices as { finish_reason: string }[])[0]!.finish_reason).toBe("stop");
    }
  });

  it("holds more device memory than allowed in memory-hog mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "simdev-"));
    const hog = await start("memory-hog", { deviceFile: join(dir, "gpu.csv") });
    const [used, total] = readFileSync(join(dir, "gpu.csv"), "utf8").trim().split(", ").map(Number);
    expect(total).toBe(DEVICE_TOTAL_MIB);
    expect(used).toBeGreaterThan(0.9 * DEVICE_TOTAL_MIB + 4096);
    await hog.close();
    expect(readFileSync(join(dir, "gpu.csv"), "utf8")).toBe(`0, ${DEVICE_TOTAL_MIB}\n`);
  });

  it("fails a share of requests with HTTP 500 or a broken stream", async () => {
    const failing = await start("failing", { failRate: 0.5 });
    let errors = 0;
    let broken = 0;
    let ok = 0;
    for (let i = 0; i < 24; i++) {
      try {
        const s = await streamChat(failing.url, {
          messages: [{ role: "user", content: "Hello" }],
          ...SAMPLING,
          seed: i,
          max_tokens: 40,
        });
        if (s.status === 500) errors++;
        else if (s.events[s.events.length - 1] === "[DONE]") ok++;
        else broken++;
      } catch {
        broken++;
      }
    }
    expect(errors).toBeGreaterThan(0);
    expect(broken).toBeGreaterThan(0);
    expect(ok).toBeGreaterThan(0);
  });

  it("stops serving after N requests in crash mode, and never reports healthy in never-healthy mode", async () => {
    let crashed = false;
    const crash = await start("crash", {
      crashAfter: 3,
      onCrash: () => {
        crashed = true;
        void crash.close();
      },
    });
    for (let i = 0; i < 3; i++)
      expect((await postChat(crash.url, { messages: [{ role: "user", content: "Hi" }], max_tokens: 5 })).status).toBe(
        200,
      );
    expect(crashed).toBe(true);
    await expect(fetch(`${crash.url}/health`)).rejects.toThrow();
    const sick = await start("never-healthy");
    expect((await fetch(`${sick.url}/health`)).status).toBe(503);
  });
});
