import { parentPort, workerData } from "node:worker_threads";
import { loadTargetTokenizer } from "@/lib/tokenizer/target-tokenizer";
import { countChunks, tokenEnds } from "./chunk-tokens";
import type { TokenWorkerData } from "./token-counter";

const port = parentPort;
if (!port) throw new Error("token-worker.ts runs only as a worker thread");
const { tokenizerDir } = workerData as TokenWorkerData;
const tok = loadTargetTokenizer(tokenizerDir);

port.on("message", (msg: { id: number; op: "ready" | "count" | "chunks" | "ends"; text: string; ends?: number[] }) => {
  try {
    const result =
      msg.op === "ready"
        ? { stableSplits: tok.stableSplits, fingerprint: tok.fingerprint }
        : msg.op === "count"
          ? tok.encode(msg.text).length
          : msg.op === "ends"
            ? tokenEnds(tok, msg.text)
            : countChunks(tok, msg.text, msg.ends ?? []);
    port.postMessage({ id: msg.id, result });
  } catch (err) {
    port.postMessage({ id: msg.id, error: err instanceof Error ? err.message : String(err) });
  }
});
