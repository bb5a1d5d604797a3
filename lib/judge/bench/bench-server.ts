/**
 * The fidelity benchmark's server, in its own process so it does not share the judge's event loop:
 * `tsx bench-server.ts programmed|paced|burst [burstTokens]`. Prints its URL on the first line of stdout. On a
 * machine of 8 cores or more (pinned or not) the programmed and paced servers spin (see wire-server.ts); the
 * benchmark prints whether they did.
 */
import { cpus } from "node:os";
import { hash32 } from "../rng";
import { wordChunks } from "../testing/scripted-server";
import { startWireServer, type WireReply } from "./wire-server";

/** Programmed truth, deterministic from the request's seed: TTFT 20–80 ms, gaps 4–24 ms, 40–120 tokens. */
export function programmed(seed: number) {
  const h = hash32("bench", seed);
  const n = 40 + (h % 81);
  const chunks = wordChunks(n, h, 0).map((c, i) => ({ text: c.text, gapMs: i === 0 ? 0 : 4 + (hash32(seed, i) % 21) }));
  return { ttftMs: 20 + (h % 61), chunks };
}

/** Tokens per second of each paced stream: the load, 100 streams at 150 tokens/s. */
export const PACED_TOKENS_PER_SECOND = 150;

/** A paced stream: TTFT 20–80 ms, then one token every 1/150 s, 40–120 tokens, each chunk stamped with its send time. */
export function paced(seed: number): WireReply {
  const h = hash32("paced", seed);
  const gapMs = 1000 / PACED_TOKENS_PER_SECOND;
  const chunks = wordChunks(40 + (h % 81), h, 0).map((c, i) => ({ text: c.text, gapMs: i === 0 ? 0 : gapMs }));
  return { ttftMs: 20 + (h % 61), chunks, stamped: true };
}

const MODES = ["programmed", "paced", "burst"] as const;

if (process.argv[1]?.endsWith("bench-server.ts")) {
  const mode = MODES.find((m) => m === process.argv[2]) ?? "programmed";
  const burstTokens = Number(process.argv[3] ?? 2000);
  const server = await startWireServer(
    (seed) =>
      mode === "burst"
        ? { ttftMs: 0, chunks: wordChunks(burstTokens, seed, 0), burst: true }
        : mode === "paced"
          ? paced(seed)
          : programmed(seed),
    // where cores are plenty (a GPU host), the truth spins rather than sleeps between requests
    { spin: mode !== "burst" && cpus().length >= 8 },
  );
  console.log(server.url);
}
