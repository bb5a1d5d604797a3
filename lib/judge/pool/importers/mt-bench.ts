import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { CHAT_APP } from "./chat-apps";
import { type ImportResult, readJsonLines } from "./raw";

const questionZ = z.object({ question_id: z.number(), category: z.string(), turns: z.array(z.string()).min(1) });
const answerZ = z.object({
  question_id: z.number(),
  choices: z.array(z.object({ turns: z.array(z.string()) })).min(1),
});

/** FastChat's MT-Bench: 80 two-turn questions; GPT-4's reference answers become recorded replies where present. */
export function importMtBench(dataDir: string): ImportResult {
  const root = join(dataDir, "fastchat-mt-bench/fastchat/llm_judge/data/mt_bench");
  const questions = readJsonLines(readFileSync(join(root, "question.jsonl"), "utf8")).map((q) => questionZ.parse(q));
  const answers = new Map<number, string[]>();
  const refPath = join(root, "reference_answer/gpt-4.jsonl");
  if (existsSync(refPath)) {
    for (const a of readJsonLines(readFileSync(refPath, "utf8"))) {
      const parsed = answerZ.parse(a);
      answers.set(parsed.question_id, parsed.choices[0]!.turns);
    }
  }
  return {
    apps: [CHAT_APP],
    conversations: questions.map((q) => ({
      source: "mt-bench",
      item: `question ${q.question_id} (${q.category})`,
      app: CHAT_APP.id,
      family: "chat",
      turns: q.turns.map((content, i) => ({ role: "user", content, recordedReply: answers.get(q.question_id)?.[i] })),
    })),
  };
}
