import { readlinkSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { attributeTokens, PieceEnds } from "./chunk-tokens";
import { type StreamingCount, streamingCount } from "./streaming-count";
import type { TokenWorkerData, TokenWorkerReady, TokenWorkerRequest } from "./token-counter";

const port = parentPort;
if (!port) throw new Error("token-worker.ts runs only as a worker thread");
const { tokenizerDir } = workerData as TokenWorkerData;
const tok = loadTargetTokenizer(tokenizerDir);
/** Every count here goes through the pieces' memory: the same tokens as encoding each text whole, at a fraction of the work. */
const pieces = new PieceEnds(tok);

/** This thread's id in the kernel: /proc/thread-self links to /proc/<pid>/task/<tid> on Linux. */
function osThreadId(): number | null {
  try {
    const tid = Number(readlinkSync("/proc/thread-self").split("/").at(-1));
    return Number.isInteger(tid) && tid > 0 ? tid : null;
  } catch {
    return null;
  }
}

/** The replies streaming now, each counted as its text arrives: encoded here, never on the lanes' thread. */
const replies = new Map<number, StreamingCount>();
const replyCount = (reply: number): StreamingCount => {
  let counting = replies.get(reply);
  if (!counting) {
    // encoding is synchronous here; a failure surfaces at the reply's finish
    counting = streamingCount(async (segment) => pieces.ends(segment), { stableSplits: tok.stableSplits });
    replies.set(reply, counting);
  }
  return counting;
};

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err));

port.on("message", (msg: TokenWorkerRequest) => {
  if (msg.op === "append") {
    replyCount(msg.reply).append(msg.text);
    return;
  }
  if (msg.op === "finish") {
    const counting = replyCount(msg.reply);
    replies.delete(msg.reply);
    if (msg.text.length > 0) counting.append(msg.text);
    counting.finish(msg.ends).then(
      (result) => port.postMessage({ id: msg.id, result }),
      (err: unknown) => port.postMessage({ id: msg.id, error: errorText(err) }),
    );
    return;
  }
  try {
    const result =
      msg.op === "chunks"
        ? attributeTokens(pieces.ends(msg.text), msg.ends)
        : msg.op === "count"
          ? pieces.ends(msg.text).length
          : ({
              stableSplits: tok.stableSplits,
              fingerprint: tok.fingerprint,
              osThreadId: osThreadId(),
            } satisfies TokenWorkerReady);
    port.postMessage({ id: msg.id, result });
  } catch (err) {
    port.postMessage({ id: msg.id, error: errorText(err) });
  }
});
