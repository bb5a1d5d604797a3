/**
 * Cuts the toy model's training corpus from MT-Bench-101's assistant turns (Apache-2.0, in shared/data).
 * Run once by hand: `npx tsx lib/sim-engine/model/build-corpus.ts /work/shared/data`; the output is committed.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = process.argv[2] ?? "/work/shared/data";
const maxBytes = Number(process.argv[3] ?? 320_000);
const lines = readFileSync(join(root, "mt-bench-101/data/subjective/mtbench101.jsonl"), "utf8").split("\n");
const seen = new Set<string>();
const out: string[] = [];
let bytes = 0;
for (const line of lines) {
  if (!line.trim()) continue;
  const row = JSON.parse(line) as { history: { bot: string }[] };
  for (const turn of row.history) {
    const text = turn.bot.trim();
    if (text.length < 40 || seen.has(text)) continue;
    seen.add(text);
    const encoded = JSON.stringify(text);
    // A reply that does not fit ends its conversation's turns; later conversations may still add shorter ones.
    if (bytes + encoded.length + 1 > maxBytes) break;
    out.push(encoded);
    bytes += encoded.length + 1;
  }
}
writeFileSync(new URL("./corpus.jsonl", import.meta.url), `${out.join("\n")}\n`);
console.log(`wrote ${out.length} replies, ${bytes} bytes`);
