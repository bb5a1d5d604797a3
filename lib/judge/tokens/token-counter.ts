import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { loadTargetTokenizer, type TargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { type CountedText, countChunks, tokenEnds } from "./chunk-tokens";
import { type StreamingCount, streamingCount } from "./streaming-count";

/** Counts tokens with the target's tokenizer. The threaded one keeps encoding off the lanes' event loop. */
export interface TokenCounter {
  /** The counting tokenizer's fingerprint (sha256 of its tokenizer.json): what a count says counted it. */
  readonly fingerprint: string;
  count(text: string): Promise<number>;
  countChunks(text: string, chunkEnds: readonly number[]): Promise<CountedText>;
  /** A reply counted as it streams: what is left at its end is its last few words. */
  streaming(): StreamingCount;
  close(): Promise<void>;
}

/** Counts on this thread with a tokenizer already loaded. */
export function inlineTokenCounter(tok: TargetTokenizer): TokenCounter {
  return {
    fingerprint: tok.fingerprint,
    count: async (text) => tok.encode(text).length,
    countChunks: async (text, ends) => countChunks(tok, text, ends),
    streaming: () => streamingCount(async (segment) => tokenEnds(tok, segment), { stableSplits: tok.stableSplits }),
    close: async () => {},
  };
}

type Reply = { id: number; result?: unknown; error?: string };

/** What the main thread asks of the token worker (token-worker.ts). */
export type TokenWorkerRequest =
  | { id: number; op: "ready" | "count"; text: string }
  | { id: number; op: "chunks"; text: string; ends: readonly number[] }
  /** More of a streaming reply's text, in order; no answer. */
  | { op: "append"; reply: number; text: string }
  /** The rest of a streaming reply's text: answers with its `CountedText` over `ends`. */
  | { id: number; op: "finish"; reply: number; text: string; ends: readonly number[] };

/** The worker's answer to "ready". */
export interface TokenWorkerReady {
  stableSplits: boolean;
  fingerprint: string;
  /** The worker's thread id in the kernel (Linux), so that a benchmark can pin it to its own core; null elsewhere. */
  osThreadId: number | null;
}

/** The bundled worker beside the code when it runs bundled (lib/pods/agent/bundle), else the source through tsx. */
export const BUNDLED_TOKEN_WORKER = "token-worker.mjs";

/** What the worker is started with: the tokenizer directory it loads. */
export interface TokenWorkerData {
  tokenizerDir: string;
}

/**
 * A streaming reply's text goes to the worker once this many characters wait: one message per few dozen tokens,
 * and the lanes' thread does no more per content event than keep the piece.
 */
export const STREAM_BATCH_CHARS = 256;

function startTokenWorker(tokenizerDir: string): Worker {
  const workerData: TokenWorkerData = { tokenizerDir };
  const bundled = fileURLToPath(new URL(`./${BUNDLED_TOKEN_WORKER}`, import.meta.url));
  if (existsSync(bundled)) return new Worker(bundled, { workerData });
  const workerPath = fileURLToPath(new URL("./token-worker.ts", import.meta.url));
  return new Worker(
    `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(workerPath)}); });`,
    { eval: true, workerData },
  );
}

/** A counter whose encoding runs on another thread, which a benchmark may pin to a core of its own. */
export interface ThreadedTokenCounter extends TokenCounter {
  /** The worker's kernel thread id (Linux; null elsewhere). */
  readonly osThreadId: number | null;
}

/**
 * The tokenizer of `tokenizerDir` in a worker thread. The worker loads the TypeScript module through tsx's loader
 * (or, bundled, its own bundle), so it runs the same tokenizer code as everything else; `ready` rejects when a
 * worker cannot start here or cannot load the tokenizer (the caller may fall back).
 *
 * A streaming reply is counted in the worker: the lanes' thread sends its text in batches of
 * `STREAM_BATCH_CHARS` as it streams, and the worker cuts and encodes it (streaming-count.ts) while the reply goes
 * on; `finish` sends the rest and the chunk ends, and gets the reply's count and its tokens per chunk back.
 */
export async function threadedTokenCounter(tokenizerDir: string): Promise<ThreadedTokenCounter> {
  const worker = startTokenWorker(tokenizerDir);
  worker.unref();
  const pending = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  let next = 1;
  let nextReply = 1;
  let failed: Error | null = null;
  const fail = (err: Error) => {
    failed = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  worker.on("error", fail);
  worker.on("exit", (code) => fail(new Error(`token worker exited (${code})`)));
  worker.on("message", (msg: Reply) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new Error(msg.error));
    else p.resolve(msg.result as never);
  });
  const call = <T>(request: TokenWorkerRequest & { id: number }): Promise<T> => {
    if (failed) return Promise.reject(failed);
    return new Promise<T>((resolve, reject) => {
      pending.set(request.id, { resolve: resolve as (v: never) => void, reject });
      worker.postMessage(request);
    });
  };
  let ready: TokenWorkerReady;
  try {
    ready = await call<TokenWorkerReady>({ id: next++, op: "ready", text: "" });
  } catch (error) {
    worker.removeAllListeners("exit");
    await worker.terminate();
    throw error;
  }
  const streaming = (): StreamingCount => {
    const reply = nextReply++;
    const waiting: string[] = [];
    let waitingChars = 0;
    return {
      append(piece) {
        waiting.push(piece);
        waitingChars += piece.length;
        if (waitingChars < STREAM_BATCH_CHARS || failed) return;
        const request: TokenWorkerRequest = { op: "append", reply, text: waiting.join("") };
        worker.postMessage(request);
        waiting.length = 0;
        waitingChars = 0;
      },
      finish: (chunkEnds) =>
        call<CountedText>({ id: next++, op: "finish", reply, text: waiting.join(""), ends: chunkEnds }),
    };
  };
  return {
    fingerprint: ready.fingerprint,
    osThreadId: ready.osThreadId,
    count: (text) => call<number>({ id: next++, op: "count", text }),
    countChunks: (text, ends) => call<CountedText>({ id: next++, op: "chunks", text, ends }),
    streaming,
    close: async () => {
      worker.removeAllListeners("exit");
      await worker.terminate();
    },
  };
}

/**
 * Counts with the tokenizer of `tokenizerDir` (the target's directory): in a worker thread where one can start, else
 * inline. Loading the directory inline is what reports a directory that lacks the files.
 */
export async function createTokenCounter(tokenizerDir: string): Promise<TokenCounter> {
  try {
    return await threadedTokenCounter(tokenizerDir);
  } catch {
    return inlineTokenCounter(loadTargetTokenizer(tokenizerDir));
  }
}
