import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { TASKS_APP } from "./chat-apps";
import { type ImportResult, readJsonLines } from "./raw";

const questionZ = z.object({ question_id: z.number(), category: z.string(), turns: z.array(z.string()).min(1) });

/** Spec-Bench's own categories (translation, summarization, qa, math_reasoning, rag); its MT-Bench copy is skipped. */
const OWN = new Set(["translation", "summarization", "qa", "math_reasoning", "rag"]);

export function importSpecBench(dataDir: string): ImportResult {
  const path = join(dataDir, "spec-bench/data/spec_bench/question.jsonl");
  const questions = readJsonLines(readFileSync(path, "utf8")).map((q) => questionZ.parse(q));
  return {
    apps: [TASKS_APP],
    conversations: questions
      .filter((q) => OWN.has(q.category))
      .map((q) => ({
        source: "spec-bench",
        item: `question ${q.question_id} (${q.category})`,
        app: TASKS_APP.id,
        family: "chat",
        turns: q.turns.map((content) => ({ role: "user", content })),
      })),
  };
}
