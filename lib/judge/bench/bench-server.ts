/**
 * The fidelity benchmark's server, in its own process so it does not share the judge's event loop:
 * `tsx bench-server.ts programmed|burst [burstTokens]`. Prints its URL on the first line of stdout. On a machine of 8
 * cores or more the programmed server spins (see wire-server.ts); the benchmark prints whether it did.
 */
import { availableParallelism } from "node:os";
import { hash32 } from "../rng";
import { wordChunks } from "../testing/scripted-server";
import { startWireServer } from "./wire-server";

const mode = process.argv[2] === "burst" ? "burst" : "programmed";
const burstTokens = Number(process.argv[3] ?? 2000);

/** Programmed truth, deterministic from the request's seed: TTFT 20–80 ms, gaps 4–24 ms, 40–120 tokens. */
export function programmed(seed: number) {
  const h = hash32("bench", seed);
  const n = 40 + (h % 81);
  const chunks = wordChunks(n, h, 0).map((c, i) => ({ text: c.text, gapMs: i === 0 ? 0 : 4 + (hash32(seed, i) % 21) }));
  return { ttftMs: 20 + (h % 61), chunks };
}

if (process.argv[1]?.endsWith("bench-server.ts")) {
  const server = await startWireServer(
    (seed) =>
      mode === "burst" ? { ttftMs: 0, chunks: wordChunks(burstTokens, seed, 0), burst: true } : programmed(seed),
    // where cores are plenty (a GPU host), the truth spins rather than sleeps between requests
    { spin: mode === "programmed" && availableParallelism() >= 8 },
  );
  console.log(server.url);
}
