import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CHAT_APP } from "./chat-apps";
import { type ImportResult, readJsonLines } from "./raw";

const dialogueZ = z.object({
  task: z.string(),
  id: z.number(),
  history: z.array(z.object({ user: z.string(), bot: z.string() })).min(1),
});

/** MT-Bench-101: 1,388 dialogues; the benchmark's bot turns become recorded replies. */
export function importMtBench101(dataDir: string): ImportResult {
  const path = join(dataDir, "mt-bench-101/data/subjective/mtbench101.jsonl");
  const dialogues = readJsonLines(readFileSync(path, "utf8")).map((d) => dialogueZ.parse(d));
  return {
    apps: [CHAT_APP],
    conversations: dialogues
      .filter((d) => d.history.every((h) => h.user.trim() !== ""))
      .map((d) => ({
        source: "mt-bench-101",
        item: `${d.task} ${d.id}`,
        app: CHAT_APP.id,
        family: "chat",
        turns: d.history.map((h) => ({ role: "user", content: h.user, recordedReply: h.bot || undefined })),
      })),
  };
}
