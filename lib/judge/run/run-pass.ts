import { setMaxListeners } from "node:events";
import type { Dispatcher } from "undici";
import { currentProtocol, getTask, type Profile, type TaskId } from "@/lib/protocol";
import { nowMs, nowNs, nsToMs, sleep } from "../clock";
import type { OnEvent } from "../events";
import { acceptanceBetween, scrapeMetrics } from "../metrics/acceptance";
import type { Sample } from "../metrics/prometheus";
import { countTrusted, setTurnCount } from "../pool/counted-by";
import type { Pool } from "../pool/schema";
import type { RequestRecord } from "../records";
import { type PassPlan, saltedSystemPrompt } from "../sessions/plan";
import { type PassSummary, summarizePass } from "../speeds/summary";
import type { TokenCounter } from "../tokens/token-counter";
import { windowRule } from "../window";
import type { PassApp } from "./context";
import { collectGarbage, summarizeGc, watchGc } from "./gc-watch";
import { runLane } from "./lane";

export interface ServerTarget {
  /** The server's base URL (`http://host:port`; a trailing `/v1` is accepted). */
  url: string;
  servedName: string;
}

export interface PassRunOptions extends ServerTarget {
  task: TaskId;
  profile: Profile;
  pool: Pool;
  evaluationSeed: string;
  dispatcher: Dispatcher;
  counter: TokenCounter;
  onEvent?: OnEvent;
  /** Overrides the protocol's think-time scale `c` (tests and short profiles). */
  thinkScale?: number;
}

export interface PassResult {
  workload: PassPlan["workload"];
  pass: PassPlan["pass"];
  salt: string;
  startedAt: string;
  /** The pass's origin on the judge's monotonic clock (process.hrtime.bigint()), to align other logs with records. */
  originNs: bigint;
  passSeconds: number;
  graceSeconds: number;
  records: RequestRecord[];
  summary: PassSummary;
}

export const baseUrl = (url: string) => url.replace(/\/+$/, "").replace(/\/v1$/, "");

/**
 * Counts, before the clock starts, every turn the pool did not count with the counter's own tokenizer: a pool
 * counted by another tokenizer (or by none it names) is recounted with the target's (the lanes never tokenize a
 * pool turn).
 */
async function ensureTokenCounts(plan: PassPlan, pool: Pool, counter: TokenCounter): Promise<void> {
  for (const q of plan.queues) {
    for (const s of q) {
      for (const t of s.turns) {
        if (t.tokens !== undefined && countTrusted(pool, t, counter.fingerprint)) continue;
        setTurnCount(t, await counter.count(t.content), counter.fingerprint);
      }
    }
  }
}

/** The pass's apps: the salted system prompt counted afresh; the tools' count from the pool only where it is the counter's. */
async function passApps(plan: PassPlan, pool: Pool, counter: TokenCounter): Promise<Map<string, PassApp>> {
  const out = new Map<string, PassApp>();
  for (const id of new Set(plan.queues.flat().map((s) => s.app))) {
    const app = pool.apps.get(id);
    if (!app) throw new Error(`the pool has no app "${id}"`);
    const content = saltedSystemPrompt(app.systemPrompt, plan.salt);
    out.set(id, {
      id,
      system: { role: "system", content },
      systemTokens: await counter.count(content),
      tools: app.tools,
      toolsTokens:
        app.tools.length === 0
          ? 0
          : app.toolsTokens !== undefined && countTrusted(pool, app, counter.fingerprint)
            ? app.toolsTokens
            : await counter.count(JSON.stringify(app.tools)),
    });
  }
  return out;
}

/**
 * Plays one pass: every lane until the fixed time, then a grace period in which what still streams may finish and
 * count. A warm-up plan sends one wave (one turn per lane) and waits for it. /metrics is read around the pass.
 */
export async function runPass(plan: PassPlan, options: PassRunOptions): Promise<PassResult> {
  const protocol = currentProtocol();
  const task = getTask(options.task);
  const warmup = plan.pass === "warmup";
  const passSeconds = options.profile.passSeconds[plan.workload];
  const graceSeconds = options.profile.graceSeconds;
  const base = baseUrl(options.url);
  await ensureTokenCounts(plan, options.pool, options.counter);
  const apps = await passApps(plan, options.pool, options.counter);
  const before = warmup ? null : await scrapeMetrics(base, options.dispatcher);

  const records: RequestRecord[] = [];
  const inFlight = { count: 0 };
  let tokensSoFar = 0;
  const hardStop = new AbortController();
  // every in-flight request and every waiting lane listens on it
  setMaxListeners(0, hardStop.signal);
  // earlier work's garbage is collected before the clock starts, not in the middle of the pass
  collectGarbage();
  const originNs = nowNs();
  const originMs = nsToMs(originNs);
  const startedAt = new Date().toISOString();
  const sendUntilMs = warmup ? Number.POSITIVE_INFINITY : passSeconds * 1000;
  options.onEvent?.({
    type: "pass-started",
    workload: plan.workload,
    pass: plan.pass,
    lanes: plan.lanes,
    interleave: plan.interleave,
    passSeconds,
    salt: plan.salt,
    at: startedAt,
  });
  const ticker = setInterval(() => {
    const elapsed = (nowMs() - originMs) / 1000;
    options.onEvent?.({
      type: "pass-progress",
      workload: plan.workload,
      pass: plan.pass,
      elapsedSeconds: elapsed,
      passSeconds,
      requestsDone: records.length,
      requestsInFlight: inFlight.count,
      tokensPerSecond: elapsed > 0 ? tokensSoFar / elapsed : 0,
    });
  }, 1000);
  // the grace deadline; a warm-up's one wave gets the same time as a pass and its grace
  const hardMs = (passSeconds + graceSeconds) * 1000;
  const hardTimer = setTimeout(() => hardStop.abort(), hardMs);
  const gc = watchGc();

  try {
    await Promise.all(
      plan.queues.map((queue, lane) =>
        runLane(
          {
            chatUrl: `${base}/v1/chat/completions`,
            model: options.servedName,
            dispatcher: options.dispatcher,
            counter: options.counter,
            rule: windowRule(task.maxModelLen),
            evaluationSeed: options.evaluationSeed,
            workload: plan.workload,
            pass: plan.pass,
            apps,
            originMs,
            sendUntilMs,
            hardStop: hardStop.signal,
            thinkScale: options.thinkScale ?? protocol.thinkTime.scale.value,
            thinkCapSeconds: protocol.thinkTime.capSeconds,
            maxTokensCap: options.profile.maxTokensCap,
            oneShot: warmup,
            inFlight,
            onRecord: (r) => {
              records.push(r);
              if (r.counted) tokensSoFar += r.outputTokens;
            },
          },
          lane,
          queue,
          plan.interleave,
        ),
      ),
    );
    // a pass lasts its fixed time even when every lane idles to its end (sessions thinking past it)
    const left = sendUntilMs - (nowMs() - originMs);
    if (!warmup && left > 0) await sleep(left);
  } finally {
    clearInterval(ticker);
    clearTimeout(hardTimer);
  }
  const gcPauses = gc.stop();
  const after = warmup ? null : await scrapeMetrics(base, options.dispatcher);
  records.sort((a, b) => a.sentMs - b.sentMs);
  const summary = summarizePass(
    plan.workload,
    plan.pass,
    plan.lanes,
    records,
    acceptanceBetween(before, after),
    summarizeGc(gcPauses),
  );
  options.onEvent?.({
    type: "pass-ended",
    workload: plan.workload,
    pass: plan.pass,
    summary,
    at: new Date().toISOString(),
  });
  return {
    workload: plan.workload,
    pass: plan.pass,
    salt: plan.salt,
    startedAt,
    originNs,
    passSeconds,
    graceSeconds,
    records,
    summary,
  };
}

export type { Sample };
