import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { clipToolOutput, type ImportResult, type RawApp, type RawTurn, readJsonLines } from "./raw";

const eventZ = z.object({
  id: z.coerce.number(),
  timestamp: z.string(),
  source: z.string(),
  message: z.string().nullish(),
  action: z.string().nullish(),
  observation: z.string().nullish(),
  content: z.string().nullish(),
  cause: z.coerce.number().nullish(),
  args: z.record(z.string(), z.unknown()).nullish(),
});
const runZ = z.object({ instance_id: z.string(), instruction: z.string(), history: z.array(eventZ) });

/** OpenHands CodeAct runs: the system event is the app's prompt; observations are tool turns with their recorded gaps. */
export function importOpenHands(dataDir: string): ImportResult {
  const path = join(dataDir, "openhands/evaluation/benchmarks/multi_swe_bench/examples/output.jsonl");
  const runs = readJsonLines(readFileSync(path, "utf8")).map((r) => runZ.parse(r));
  let app: RawApp | null = null;
  const conversations = [];
  for (const run of runs) {
    const system = run.history.find((e) => e.action === "system");
    const systemPrompt = typeof system?.args?.content === "string" ? system.args.content : null;
    if (systemPrompt && !app) {
      app = {
        id: "openhands-codeact",
        family: "agent",
        systemPrompt,
        tools: [],
        source: "openhands",
        license: "MIT (OpenHands/OpenHands)",
      };
    }
    const times = new Map(run.history.map((e) => [e.id, Date.parse(e.timestamp)]));
    const turns: RawTurn[] = [{ role: "user", content: run.instruction }];
    for (const e of run.history) {
      if (e.source === "agent" && e.action && e.action !== "system" && e.observation == null) {
        const thought = typeof e.args?.thought === "string" ? e.args.thought : "";
        const reply = [thought, e.message ?? ""].filter((s) => s.trim() !== "").join("\n\n");
        const last = turns[turns.length - 1]!;
        if (last.recordedReply === undefined && reply) last.recordedReply = reply;
      } else if (e.observation && e.observation !== "recall" && e.content && e.cause != null) {
        const sent = times.get(e.cause);
        const delay = sent === undefined ? undefined : Math.max(0, (Date.parse(e.timestamp) - sent) / 1000);
        turns.push({ role: "tool", content: clipToolOutput(e.content), delaySeconds: delay });
      }
    }
    conversations.push({
      source: "openhands",
      item: run.instance_id,
      app: "openhands-codeact",
      family: "agent" as const,
      turns,
    });
  }
  if (!app) throw new Error(`${path}: no run carries a system prompt`);
  return { apps: [app], conversations };
}
