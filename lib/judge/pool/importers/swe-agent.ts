import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { z } from "zod";
import { hexTag } from "../../rng";
import { clipToolOutput, type ImportResult, type RawApp, type RawTurn } from "./raw";

const contentZ = z.union([z.string(), z.array(z.object({ text: z.string().optional() }))]);
const messageZ = z.object({ role: z.string(), content: contentZ.nullish() });
const trajZ = z.object({
  history: z.array(messageZ),
  trajectory: z.array(z.object({ execution_time: z.number().nullish() })).optional(),
});

const text = (c: z.infer<typeof contentZ> | null | undefined): string =>
  typeof c === "string" ? c : (c ?? []).map((p) => p.text ?? "").join("");

function trajFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...trajFiles(p));
    else if (name.endsWith(".traj")) out.push(p);
  }
  return out.sort();
}

/** SWE-agent trajectories: each distinct system prompt is an app; observations are tool turns. */
export function importSweAgent(dataDir: string): ImportResult {
  const root = join(dataDir, "swe-agent");
  const apps = new Map<string, RawApp>();
  const conversations = [];
  for (const file of trajFiles(root)) {
    const traj = trajZ.parse(JSON.parse(readFileSync(file, "utf8")));
    const system = traj.history.find((m) => m.role === "system");
    if (!system) continue;
    const systemPrompt = text(system.content);
    const appId = `swe-agent-${hexTag(systemPrompt).slice(0, 8)}`;
    if (!apps.has(appId)) {
      apps.set(appId, {
        id: appId,
        family: "agent",
        systemPrompt,
        tools: [],
        source: "swe-agent",
        license: "MIT (SWE-agent/SWE-agent)",
      });
    }
    const delays = (traj.trajectory ?? []).map((s) => s.execution_time ?? undefined);
    const turns: RawTurn[] = [];
    let tools = 0;
    for (const m of traj.history) {
      if (m.role === "system") continue;
      const body = text(m.content);
      if (m.role === "assistant") {
        const last = turns[turns.length - 1];
        if (last && last.recordedReply === undefined) last.recordedReply = body;
        continue;
      }
      if (body.trim() === "") continue;
      // the first user message is the task; later user or tool messages are observations
      if (turns.length === 0) turns.push({ role: "user", content: body });
      else turns.push({ role: "tool", content: clipToolOutput(body), delaySeconds: delays[tools++] });
    }
    if (turns.length > 0) {
      conversations.push({
        source: "swe-agent",
        item: relative(root, file),
        app: appId,
        family: "agent" as const,
        turns,
      });
    }
  }
  return { apps: [...apps.values()], conversations };
}
