import { z } from "zod";
import { Section } from "@/components/ui/section";

const gib = (mib: number) => `${(mib / 1024).toFixed(1)} GiB`;

/** The memory part of a stored record (lib/gates/record/schema.ts), read leniently: older records lack the extras. */
const recordMemorySchema = z.object({
  memory: z.object({
    ok: z.boolean(),
    peak_mib: z.number(),
    allowed_mib: z.number(),
    stock_peak_mib: z.number().nullable().optional(),
    startup_peak_mib: z.number().nullable().optional(),
    device_mib: z.number().optional(),
    gpu_memory_utilization: z.number().optional(),
  }),
  limits: z.object({ memory_slack_mib: z.number().optional() }).optional(),
});

export interface MemoryView {
  /** The candidate's peak over its timed passes, and whether it is within the limit: the gated figure. */
  peakMib: number;
  ok: boolean;
  limitMib: number;
  /** How the limit is made, with its numbers when the record kept them. */
  limitRule: string;
  /** The stock engine's peak over the same passes (null: not read; undefined: a record from before it was kept). */
  stockPeakMib: number | null | undefined;
  /** The candidate's peak from its start to its first timed pass. */
  startupPeakMib: number | null | undefined;
}

/** What the evaluation page says about device memory, from the stored record; null when it holds no memory verdict. */
export function memoryView(record: unknown): MemoryView | null {
  const parsed = recordMemorySchema.safeParse(record);
  if (!parsed.success) return null;
  const { memory, limits } = parsed.data;
  const slack = limits?.memory_slack_mib;
  const limitRule =
    memory.device_mib !== undefined && memory.gpu_memory_utilization !== undefined && slack !== undefined
      ? `GPU_MEMORY_UTILIZATION ${memory.gpu_memory_utilization.toFixed(2)} × the device's ${gib(memory.device_mib)} + ${gib(slack)} slack`
      : "GPU_MEMORY_UTILIZATION × the device + the slack";
  return {
    peakMib: memory.peak_mib,
    ok: memory.ok,
    limitMib: memory.allowed_mib,
    limitRule,
    stockPeakMib: memory.stock_peak_mib,
    startupPeakMib: memory.startup_peak_mib,
  };
}

/** The finished evaluation's device memory: the gated peak against its limit, then what is shown and not gated. */
export function MemorySummary({ record }: { record: unknown }) {
  const view = memoryView(record);
  if (!view) return null;
  return (
    <Section id="memory" title="Device memory">
      <p className="mt-1 text-sm text-slate-700">
        Sampled from outside every 0.5 s while each timed pass ran (warm-ups, start-up and shutdown are not counted).
      </p>
      <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[16rem_1fr]" data-testid="memory-summary">
        <dt className="text-slate-600">Candidate, timed passes (gated)</dt>
        <dd className="tabular-nums">
          <span className={view.ok ? "font-medium" : "font-semibold text-red-800"}>{gib(view.peakMib)}</span>{" "}
          {view.ok ? "at peak, within" : "at peak, over"} its limit of {gib(view.limitMib)}
        </dd>
        <dt className="text-slate-600">The limit</dt>
        <dd className="tabular-nums">
          {gib(view.limitMib)} = {view.limitRule}
        </dd>
        {view.stockPeakMib !== undefined ? (
          <>
            <dt className="text-slate-600">Stock engine, timed passes</dt>
            <dd className="tabular-nums">
              {view.stockPeakMib === null ? "not read" : `${gib(view.stockPeakMib)} at peak`}{" "}
              <span className="text-slate-600">(the same limit; shown, not gated)</span>
            </dd>
          </>
        ) : null}
        {view.startupPeakMib !== undefined ? (
          <>
            <dt className="text-slate-600">Candidate, start-up and first warm-up</dt>
            <dd className="tabular-nums">
              {view.startupPeakMib === null ? "not read" : `${gib(view.startupPeakMib)} at peak`}{" "}
              <span className="text-slate-600">(not gated: the protocol counts the timed passes only)</span>
            </dd>
          </>
        ) : null}
      </dl>
    </Section>
  );
}
