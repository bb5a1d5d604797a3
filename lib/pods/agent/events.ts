import { z } from "zod";

/**
 * What the pod agent reports, one JSON object per line on its standard output.
 * The worker relays these; nothing an engine says about itself is trusted for scoring,
 * so every figure here is measured by the agent from outside the engine.
 */
export const agentEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("phase"), phase: z.string(), engine: z.enum(["candidate", "stock"]).optional() }),
  z.object({
    type: z.literal("engine"),
    engine: z.enum(["candidate", "stock"]),
    state: z.enum(["starting", "healthy", "stopping", "stopped", "died", "start-failed"]),
    detail: z.string().optional(),
  }),
  z.object({
    type: z.literal("pass-started"),
    engine: z.enum(["candidate", "stock"]),
    workload: z.enum(["solo", "team", "busy"]),
    pass: z.number().int(),
    fixedSeconds: z.number(),
  }),
  z.object({
    type: z.literal("pass-progress"),
    engine: z.enum(["candidate", "stock"]),
    workload: z.enum(["solo", "team", "busy"]),
    pass: z.number().int(),
    elapsedSeconds: z.number(),
    fixedSeconds: z.number(),
    requestsDone: z.number().int(),
    tokensPerSecond: z.number(),
  }),
  z.object({
    type: z.literal("pass-ended"),
    engine: z.enum(["candidate", "stock"]),
    workload: z.enum(["solo", "team", "busy"]),
    pass: z.number().int(),
    speed: z.number(),
    requests: z.number().int(),
    failed: z.number().int(),
    outputTokens: z.number().int(),
    summary: z.record(z.string(), z.unknown()).optional(),
  }),
  z.object({
    type: z.literal("memory"),
    usedMib: z.number(),
    totalMib: z.number(),
    /** Whose reading, and in which window: a timed pass (gated for the candidate), or the candidate's start-up. */
    engine: z.enum(["candidate", "stock"]).optional(),
    window: z.enum(["startup", "pass"]).optional(),
    /** GPU_MEMORY_UTILIZATION × the device + the slack: what the reading is held to, not the device's size. */
    limitMib: z.number().optional(),
  }),
  z.object({ type: z.literal("log"), level: z.enum(["info", "warn", "error"]), message: z.string() }),
  z.object({
    type: z.literal("result"),
    outcome: z.enum(["scored", "failed", "void"]),
    reason: z.string().nullable(),
    record: z.record(z.string(), z.unknown()).nullable(),
    logTail: z.string().optional(),
  }),
]);

export type AgentEvent = z.infer<typeof agentEventSchema>;

/** Parses one line of agent output; lines that are not events (an engine's own noise) come back as null. */
export function parseAgentLine(line: string): AgentEvent | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const parsed = agentEventSchema.safeParse(JSON.parse(trimmed));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
