import { z } from "zod";
import { SANDBOX_PROPERTIES, SANDBOX_PROPERTY_IDS, type SandboxPropertyId } from "./properties";

/** How the probe engine (lib/sim-engine/engines/probe) marks its report lines; anything before it is the log's. */
export const PROBE_PREFIX = "ARENA-PROBE ";
/** A detached process the probe left behind says it still lives with these lines. */
export const PROBE_HEARTBEAT = "ARENA-PROBE-HEARTBEAT ";

const lineSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("attempt"),
    start: z.string(),
    attack: z.string(),
    property: z.enum(SANDBOX_PROPERTY_IDS),
    target: z.string(),
    achieved: z.boolean(),
    detail: z.string(),
  }),
  z.object({ kind: z.literal("note"), start: z.string(), attack: z.string(), target: z.string(), detail: z.string() }),
]);

export type ProbeLine = z.infer<typeof lineSchema>;
export type ProbeAttempt = Extract<ProbeLine, { kind: "attempt" }>;

/** The probe's lines in a log (one per line, after any prefix the log adds); a line that does not parse is an error. */
export function parseProbeReport(log: string): ProbeLine[] {
  const out: ProbeLine[] = [];
  for (const line of log.split("\n")) {
    const at = line.indexOf(PROBE_PREFIX);
    if (at === -1) continue;
    let json: unknown;
    try {
      json = JSON.parse(line.slice(at + PROBE_PREFIX.length));
    } catch {
      throw new Error(`a probe line is not JSON: ${line}`);
    }
    const parsed = lineSchema.safeParse(json);
    if (!parsed.success) throw new Error(`a probe line does not parse: ${line} (${parsed.error.message})`);
    out.push(parsed.data);
  }
  return out;
}

export interface PropertyVerdict {
  property: SandboxPropertyId;
  held: boolean;
  /** Attacks the property lists that the report holds no attempt of: a property is never held on no evidence. */
  untried: string[];
  /** The attempts that got what they wanted. */
  breaches: ProbeAttempt[];
  attempts: number;
}

/** Each property the probe can show (its `probe` list is not empty), judged from the attempts of a report. */
export function judgeProbeReport(lines: readonly ProbeLine[]): PropertyVerdict[] {
  const attempts = lines.filter((l): l is ProbeAttempt => l.kind === "attempt");
  return SANDBOX_PROPERTIES.filter((p) => p.probe.length > 0).map((property) => {
    const own = attempts.filter((a) => a.property === property.id);
    const untried = property.probe.filter((attack) => !own.some((a) => a.attack === attack));
    const breaches = own.filter((a) => a.achieved);
    return {
      property: property.id,
      held: untried.length === 0 && breaches.length === 0,
      untried,
      breaches,
      attempts: own.length,
    };
  });
}
