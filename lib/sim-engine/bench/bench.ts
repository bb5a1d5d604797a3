/**
 * Benchmark of the simulated engine: for stock and each speculator, solo tokens/s, tokens per verify step,
 * tokens/s at 8 and 20 concurrent lanes, and the simulator's own CPU time per generated token.
 * Usage: npx tsx lib/sim-engine/bench/bench.ts [--seconds S] [--speed X] [--modes stock,ngram,draft,eagle]
 */
import { z } from "zod";
import type { Mode } from "../modes";
import { startSimEngine } from "../sim-engine";

const args = z
  .object({
    seconds: z.coerce.number().positive().default(8),
    speed: z.coerce.number().positive().default(1),
    modes: z.string().default("stock,ngram,draft,eagle"),
  })
  .parse(
    Object.fromEntries(
      process.argv
        .slice(2)
        .join(" ")
        .split("--")
        .filter(Boolean)
        .map((s) => s.trim().split(/\s+/) as [string, string]),
    ),
  );

const SYSTEM = "You are a helpful assistant. Answer clearly and completely, with examples where they help.";
const QUESTIONS = [
  "What is the tallest mountain in the world, and how was its height measured?",
  "Explain how a binary search works, step by step.",
  "Can you suggest a healthy breakfast for a busy morning?",
  "Why do leaves change colour in autumn?",
  "Summarize the causes of the Great Depression.",
  "How should I prepare for a job interview?",
  "What is the difference between weather and climate?",
  "Rewrite your previous answer in two sentences.",
];

interface Msg {
  role: "system" | "user" | "assistant";
  content: string;
}

async function chat(
  url: string,
  messages: Msg[],
  seed: number,
): Promise<{ tokens: number; seconds: number; text: string }> {
  const t0 = performance.now();
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      messages,
      temperature: 0.7,
      top_p: 0.8,
      top_k: 20,
      seed,
      max_tokens: 512,
      stream: true,
      stream_options: { include_usage: true },
      chat_template_kwargs: { enable_thinking: false },
    }),
  });
  const body = await r.text();
  let text = "";
  let tokens = 0;
  for (const line of body.split("\n")) {
    if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
    const chunk = JSON.parse(line.slice(6)) as {
      choices: { delta: { content?: string } }[];
      usage?: { completion_tokens: number };
    };
    text += chunk.choices[0]?.delta.content ?? "";
    if (chunk.usage) tokens = chunk.usage.completion_tokens;
  }
  return { tokens, seconds: (performance.now() - t0) / 1000, text };
}

/** Lanes each run multi-turn sessions back to back; returns output tokens/s while every lane is busy. */
async function runLanes(url: string, lanes: number, seconds: number): Promise<{ tps: number; requestTps: number }> {
  const end = performance.now() + seconds * 1000;
  let tokens = 0;
  let reqSeconds = 0;
  let seed = 1;
  const lane = async (id: number) => {
    let history: Msg[] = [{ role: "system", content: SYSTEM }];
    let turn = id;
    while (performance.now() < end) {
      history.push({ role: "user", content: QUESTIONS[turn++ % QUESTIONS.length]! });
      const r = await chat(url, history, seed++);
      if (performance.now() <= end) {
        tokens += r.tokens;
        reqSeconds += r.seconds;
      }
      history.push({ role: "assistant", content: r.text });
      if (history.length > 12) history = [{ role: "system", content: SYSTEM }];
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: lanes }, (_, i) => lane(i)));
  const wall = Math.min(performance.now(), end) - t0;
  return { tps: tokens / (wall / 1000), requestTps: tokens / reqSeconds };
}

const rows: string[][] = [];
for (const mode of args.modes.split(",") as Mode[]) {
  const engine = await startSimEngine({ mode, simSpeed: args.speed, maxNumSeqs: 20 });
  const cpu0 = process.cpuUsage();
  const solo = await runLanes(engine.url, 1, args.seconds);
  const team = await runLanes(engine.url, 8, args.seconds);
  const gpu0 = engine.core.counters.gpuSeconds;
  const wall0 = performance.now();
  const busy = await runLanes(engine.url, 20, args.seconds);
  // Simulated GPU time over wall time at 20 lanes: 1.0 means the engine was paced by the cost model throughout.
  const paced = (engine.core.counters.gpuSeconds - gpu0) / args.speed / ((performance.now() - wall0) / 1000);
  if (process.env.BENCH_DEBUG) {
    const k = engine.kv;
    console.error(mode, { ...engine.core.counters, acceptedPerPos: undefined, queries: k.queries, hits: k.hits });
  }
  const cpu = process.cpuUsage(cpu0);
  const c = engine.core.counters;
  const perStep = c.drafts > 0 ? 1 + c.acceptedTokens / c.drafts : 1;
  const accept = c.draftTokens > 0 ? c.acceptedTokens / c.draftTokens : 0;
  rows.push([
    mode,
    (solo.requestTps * args.speed).toFixed(0),
    perStep.toFixed(2),
    accept.toFixed(2),
    (team.tps * args.speed).toFixed(0),
    (busy.tps * args.speed).toFixed(0),
    ((c.computeSeconds / c.generationTokens) * 1e6).toFixed(0),
    (((cpu.user + cpu.system) / c.generationTokens) * 1).toFixed(0),
    (c.computeSeconds / (c.gpuSeconds / args.speed)).toFixed(3),
    paced.toFixed(2),
  ]);
  await engine.close();
}
const header = [
  "mode",
  "solo tok/s",
  "tok/verify step",
  "accept rate",
  "8 lanes tok/s",
  "20 lanes tok/s",
  "engine CPU µs/tok",
  "process CPU µs/tok",
  "engine CPU / sim time",
  "20-lane paced share",
];
console.log(`SIM_SPEED ${args.speed}, ${args.seconds} s per workload (tok/s scaled to SIM_SPEED 1)`);
console.log(header.join(" | "));
for (const r of rows) console.log(r.join(" | "));
