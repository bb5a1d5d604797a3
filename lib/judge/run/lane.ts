import type { ChatMessage } from "@/lib/tokenizer/chat-template";
import { timedRequestBody } from "../client/request-body";
import { StreamBuffers } from "../client/stream-buffers";
import { streamChat } from "../client/stream-chat";
import { nowMs, sleepUntil } from "../clock";
import type { Session } from "../pool/schema";
import { isCounted, type RequestRecord } from "../records";
import { requestSeed } from "../sessions/plan";
import { cutStart, needsCut, promptEstimate } from "../window";
import type { PassContext } from "./context";
import { LiveSession } from "./live-session";

const elapsedMs = (ctx: PassContext) => nowMs() - ctx.originMs;

/**
 * One lane: `m` live sessions; it sends the next turn of whichever session's think time passed first (ties to the
 * earlier slot), one request at a time, until the pass's fixed time ends. A finished or failed session gives its slot
 * to the next in the lane's queue.
 */
export async function runLane(
  ctx: PassContext,
  lane: number,
  queue: readonly Session[],
  interleave: number,
): Promise<void> {
  let nextInQueue = 0;
  const admit = (readyAtMs: number): LiveSession | null => {
    const s = queue[nextInQueue++];
    if (!s) return null;
    const app = ctx.apps.get(s.app);
    if (!app) throw new Error(`session ${s.id}: app ${s.app} is not in the pass`);
    return new LiveSession(s, app, readyAtMs);
  };
  const slots: (LiveSession | null)[] = [];
  for (let i = 0; i < interleave; i++) slots.push(admit(0));
  let laneFreeAtMs = 0;
  const buffers = new StreamBuffers();

  while (!ctx.hardStop.aborted) {
    let pick = -1;
    for (let i = 0; i < slots.length; i++) {
      const s = slots[i];
      if (s && (pick < 0 || s.readyAtMs < slots[pick]!.readyAtMs)) pick = i;
    }
    if (pick < 0) return;
    const live = slots[pick]!;
    if (live.readyAtMs >= ctx.sendUntilMs) return;
    await sleepUntil(ctx.originMs, live.readyAtMs, ctx.hardStop);
    if (elapsedMs(ctx) >= ctx.sendUntilMs || ctx.hardStop.aborted) return;
    const scheduledMs = Math.max(live.readyAtMs, laneFreeAtMs);

    const record = await playTurn(ctx, lane, live, scheduledMs, buffers);
    laneFreeAtMs = record.doneMs;
    ctx.onRecord(record);
    if (ctx.oneShot) return;
    if (!record.counted) {
      slots[pick] = admit(record.doneMs);
      continue;
    }
    if (live.done) slots[pick] = admit(record.doneMs);
    else {
      const think = Math.min(live.session.turns[live.turn]!.thinkSeconds, ctx.thinkCapSeconds) * ctx.thinkScale;
      live.readyAtMs = record.doneMs + think * 1000;
    }
  }
}

async function playTurn(
  ctx: PassContext,
  lane: number,
  live: LiveSession,
  scheduledMs: number,
  buffers: StreamBuffers,
): Promise<RequestRecord> {
  const turnIndex = live.turn;
  const turn = live.session.turns[turnIndex]!;
  const message: ChatMessage =
    turn.role === "tool"
      ? { role: "tool", content: turn.content, tool_call_id: `call_${turnIndex}` }
      : { role: "user", content: turn.content };
  live.push(message, turn.tokens ?? 0);
  const maxTokens = ctx.maxTokensCap === null ? turn.maxTokens : Math.min(turn.maxTokens, ctx.maxTokensCap);

  let windowCut = false;
  if (needsCut(live.rawTokens(), maxTokens, ctx.rule)) {
    live.cutFrom(cutStart(live.tokens, live.app.toolsTokens, ctx.rule));
    windowCut = true;
  }
  const messages = live.messages.slice();
  const seed = requestSeed(ctx.evaluationSeed, live.session.id, turnIndex);
  const body = timedRequestBody({ model: ctx.model, messages, tools: live.app.tools, maxTokens, seed });

  ctx.inFlight.count++;
  // the reply is counted as it streams: its end waits for its last few words, not its whole text, before the next turn
  const counting = ctx.counter.streaming();
  const out = await streamChat(ctx.chatUrl, body, {
    dispatcher: ctx.dispatcher,
    signal: ctx.hardStop,
    onContent: (text) => counting.append(text),
    originMs: ctx.originMs,
    buffers,
  });
  ctx.inFlight.count--;
  const counted = await counting.finish(out.chunkEnds);
  const error = out.error ?? (ctx.hardStop.aborted && !out.sawDone ? "grace period ended" : null);

  const record: RequestRecord = {
    workload: ctx.workload,
    pass: ctx.pass,
    lane,
    sessionId: live.session.id,
    app: live.app.id,
    turn: turnIndex,
    seed,
    maxTokens,
    messages,
    tools: live.app.tools,
    promptEstimate: promptEstimate(live.rawTokens(), ctx.rule),
    windowCut,
    scheduledMs,
    sentMs: out.sentMs,
    firstTokenMs: out.firstTokenMs,
    lastTokenMs: out.lastTokenMs,
    doneMs: out.doneMs,
    chunkMs: out.chunkMs,
    chunkTokens: counted.perChunk,
    status: out.status,
    sawDone: out.sawDone,
    finishReason: out.finishReason,
    error,
    outputTokens: counted.total,
    usage: out.usage,
    counted: false,
    text: out.text,
  };
  record.counted = isCounted(record);
  if (record.counted) {
    live.push({ role: "assistant", content: out.text }, counted.total);
    live.turn++;
  }
  return record;
}
