import { parentPort } from "node:worker_threads";
import { defaultTokenizer } from "@/lib/tokenizer/qwen3-tokenizer";
import { countChunks, tokenEnds } from "./chunk-tokens";

const tok = defaultTokenizer();
const port = parentPort;
if (!port) throw new Error("token-worker.ts runs only as a worker thread");

port.on("message", (msg: { id: number; op: "ready" | "count" | "chunks" | "ends"; text: string; ends?: number[] }) => {
  try {
    const result =
      msg.op === "ready"
        ? { stableSplits: tok.stableSplits }
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
