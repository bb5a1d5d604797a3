import { z } from "zod";

/**
 * What the pod agent reports, one JSON object per line: on its standard output, or in its event file where the
 * local backend gives it one (so that the pod outlives its worker: lib/pods/README.md, "A pod's life").
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
    type: z.literal("check-progress"),
    /** The engine the requests go to; the stock engine scores both engines' sampled replies. */
    engine: z.enum(["candidate", "stock"]),
    check: z.enum(["greedy", "fidelity", "sampled-candidate", "sampled-stock"]),
    done: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
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
  return parsePodLine(line)?.event ?? null;
}

/**
 * An event as its pod reported it: `seq` is the agent's own count (1, 2, … in the order it emitted them), which the
 * worker stores with what it relays, so that a worker re-attached to a running pod reads on from where the stored
 * events end and drops anything replayed. Absent on lines that no agent numbered (an older agent, a test's).
 */
export interface NumberedEvent {
  seq?: number;
  event: AgentEvent;
}

/** The agent's exit status, codes the worker reads from the agent's last line. */
export const AGENT_EXIT = { completed: 0, failed: 1, deadline: 124 } as const;

/**
 * The last line the agent writes to its event file (never to its standard output, which a viewer of the pod's log
 * reads): how it ended. A pod whose file ends without one was killed outright (a signal it could not handle).
 */
export const agentExitSchema = z.object({
  type: z.literal("agent-exit"),
  code: z.number().int(),
  reason: z.enum(["deadline"]).optional(),
});

export type AgentExit = z.infer<typeof agentExitSchema>;

/** One line of the agent's output as JSON: an event with its sequence number. */
export function podLine(seq: number, event: AgentEvent): string {
  return `${JSON.stringify({ ...event, seq })}\n`;
}

const seqOf = (value: unknown) =>
  typeof value === "number" && Number.isInteger(value) && value > 0 && value <= 2_147_483_647 ? value : undefined;

/** Parses one line of agent output with its sequence number, when it carries one; anything else is null. */
export function parsePodLine(line: string): NumberedEvent | null {
  const json = parseObject(line);
  if (!json) return null;
  const parsed = agentEventSchema.safeParse(json);
  if (!parsed.success) return null;
  const seq = seqOf(json.seq);
  return seq === undefined ? { event: parsed.data } : { seq, event: parsed.data };
}

/** The agent's exit line, or null for any other line. */
export function parseAgentExit(line: string): AgentExit | null {
  const json = parseObject(line);
  const parsed = json ? agentExitSchema.safeParse(json) : null;
  return parsed?.success ? parsed.data : null;
}

function parseObject(line: string): Record<string, unknown> | null {
  const trimmed = line.trim();
  if (!trimmed.startsWith("{")) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
