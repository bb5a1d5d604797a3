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

/** The bundled worker beside the code when it runs bundled (lib/pods/agent/bundle), else the source through tsx. */
export const BUNDLED_TOKEN_WORKER = "token-worker.mjs";

/** What the worker is started with: the tokenizer directory it loads. */
export interface TokenWorkerData {
  tokenizerDir: string;
}

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

/**
 * The tokenizer of `tokenizerDir` in a worker thread. The worker loads the TypeScript module through tsx's loader
 * (or, bundled, its own bundle), so it runs the same tokenizer code as everything else; `ready` rejects when a
 * worker cannot start here or cannot load the tokenizer (the caller may fall back).
 */
export async function threadedTokenCounter(tokenizerDir: string): Promise<TokenCounter> {
  const worker = startTokenWorker(tokenizerDir);
  worker.unref();
  const pending = new Map<number, { resolve: (v: never) => void; reject: (e: Error) => void }>();
  let next = 1;
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
  const call = <T>(op: "ready" | "count" | "chunks" | "ends", text: string, ends?: readonly number[]): Promise<T> => {
    if (failed) return Promise.reject(failed);
    const id = next++;
    return new Promise<T>((resolve, reject) => {
      pending.set(id, { resolve: resolve as (v: never) => void, reject });
      worker.postMessage({ id, op, text, ends });
    });
  };
  let ready: { stableSplits: boolean; fingerprint: string };
  try {
    ready = await call<{ stableSplits: boolean; fingerprint: string }>("ready", "");
  } catch (error) {
    worker.removeAllListeners("exit");
    await worker.terminate();
    throw error;
  }
  const { stableSplits, fingerprint } = ready;
  return {
    fingerprint,
    count: (text) => call<number>("count", text),
    countChunks: (text, ends) => call<CountedText>("chunks", text, ends),
    streaming: () => streamingCount((segment) => call<number[]>("ends", segment), { stableSplits }),
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
