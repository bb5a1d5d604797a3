import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { defaultTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { type CountedText, countChunks, tokenEnds } from "./chunk-tokens";
import { type StreamingCount, streamingCount } from "./streaming-count";

/** Counts tokens with the target's tokenizer. The threaded one keeps encoding off the lanes' event loop. */
export interface TokenCounter {
  count(text: string): Promise<number>;
  countChunks(text: string, chunkEnds: readonly number[]): Promise<CountedText>;
  /** A reply counted as it streams: what is left at its end is its last few words. */
  streaming(): StreamingCount;
  close(): Promise<void>;
}

export function inlineTokenCounter(): TokenCounter {
  const tok = defaultTokenizer();
  return {
    count: async (text) => tok.encode(text).length,
    countChunks: async (text, ends) => countChunks(tok, text, ends),
    streaming: () => streamingCount(async (segment) => tokenEnds(tok, segment), { stableSplits: tok.stableSplits }),
    close: async () => {},
  };
}

type Reply = { id: number; result?: unknown; error?: string };

/** The bundled worker beside the code when it runs bundled (lib/pods/agent/bundle), else the source through tsx. */
export const BUNDLED_TOKEN_WORKER = "token-worker.mjs";

function startTokenWorker(): Worker {
  const bundled = fileURLToPath(new URL(`./${BUNDLED_TOKEN_WORKER}`, import.meta.url));
  if (existsSync(bundled)) return new Worker(bundled);
  const workerPath = fileURLToPath(new URL("./token-worker.ts", import.meta.url));
  return new Worker(
    `import("tsx/esm/api").then(({ register }) => { register(); return import(${JSON.stringify(workerPath)}); });`,
    { eval: true },
  );
}

/**
 * A tokenizer in a worker thread. The worker loads the TypeScript module through tsx's loader (or, bundled, its own
 * bundle), so it runs the same tokenizer code as everything else; `ready` rejects when a worker cannot start here
 * (the caller may fall back).
 */
export async function threadedTokenCounter(): Promise<TokenCounter> {
  const worker = startTokenWorker();
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
  const { stableSplits } = await call<{ stableSplits: boolean }>("ready", "");
  return {
    count: (text) => call<number>("count", text),
    countChunks: (text, ends) => call<CountedText>("chunks", text, ends),
    streaming: () => streamingCount((segment) => call<number[]>("ends", segment), { stableSplits }),
    close: async () => {
      worker.removeAllListeners("exit");
      await worker.terminate();
    },
  };
}

/** The threaded counter where a worker can start, else the inline one. */
export async function createTokenCounter(): Promise<TokenCounter> {
  try {
    return await threadedTokenCounter();
  } catch {
    return inlineTokenCounter();
  }
}
