import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { toolSchemaZ } from "../schema";
import { clipToolOutput, type ImportResult, type RawApp, type RawTurn, readJsonLines } from "./raw";

const toolCallZ = z.object({ function: z.object({ name: z.string(), arguments: z.string() }) });
const rowZ = z.object({
  conversation_id: z.string(),
  turn: z.coerce.number(),
  role: z.enum(["user", "assistant", "tool"]),
  content: z.string().nullish(),
  system: z.string().nullish(),
  tools: z.array(toolSchemaZ).nullish(),
  reasoning_content: z.string().nullish(),
  tool_calls: z.array(toolCallZ).nullish(),
  tool_results: z.array(z.object({ content: z.string() })).nullish(),
  delay_seconds: z.coerce.number().nullish(),
});
type Row = z.infer<typeof rowZ>;

/** An assistant row as text: its reasoning, then each tool call in Qwen3's `<tool_call>` form. */
export function assistantText(row: Pick<Row, "content" | "reasoning_content" | "tool_calls">): string {
  const parts: string[] = [];
  if (row.reasoning_content) parts.push(row.reasoning_content.trim());
  if (row.content) parts.push(row.content.trim());
  for (const call of row.tool_calls ?? []) {
    let args: unknown = call.function.arguments;
    try {
      args = JSON.parse(call.function.arguments);
    } catch {}
    parts.push(`<tool_call>\n${JSON.stringify({ name: call.function.name, arguments: args })}\n</tool_call>`);
  }
  return parts.join("\n\n");
}

/** MLCommons endpoints' edge-agentic dataset: 20 mini-swe-agent SWE-bench conversations with recorded tool delays. */
export function importMlcommons(dataDir: string): ImportResult {
  const path = join(dataDir, "mlcommons-endpoints/examples/11_Edge_Agentic_Example/agentic_coding_2.5h.jsonl");
  const rows = readJsonLines(readFileSync(path, "utf8")).map((r) => rowZ.parse(r));
  const byConversation = new Map<string, Row[]>();
  for (const r of rows) {
    const list = byConversation.get(r.conversation_id) ?? [];
    list.push(r);
    byConversation.set(r.conversation_id, list);
  }
  let app: RawApp | null = null;
  const conversations = [];
  for (const [id, list] of byConversation) {
    list.sort((a, b) => a.turn - b.turn);
    const first = list[0]!;
    if (first.role !== "user" || !first.content) continue;
    if (!app && first.system) {
      app = {
        id: "mini-swe-agent",
        family: "agent",
        systemPrompt: first.system,
        tools: first.tools ?? [],
        source: "mlcommons-endpoints",
        license: "Apache-2.0 (mlcommons/endpoints; SWE-bench MIT, mini-swe-agent MIT)",
      };
    }
    const turns: RawTurn[] = [];
    for (const r of list) {
      if (r.role === "user" && r.content) turns.push({ role: "user", content: r.content });
      else if (r.role === "tool") {
        const content = (r.tool_results ?? []).map((t) => t.content).join("\n\n");
        if (content.trim() === "") continue;
        turns.push({ role: "tool", content: clipToolOutput(content), delaySeconds: r.delay_seconds ?? undefined });
      } else if (r.role === "assistant") {
        const last = turns[turns.length - 1];
        if (last && last.recordedReply === undefined) last.recordedReply = assistantText(r);
      }
    }
    conversations.push({
      source: "mlcommons-endpoints",
      item: id,
      app: "mini-swe-agent",
      family: "agent" as const,
      turns,
    });
  }
  if (!app) throw new Error(`${path}: no conversation carries a system prompt`);
  return { apps: [app], conversations };
}
