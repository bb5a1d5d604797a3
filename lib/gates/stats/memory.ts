import { allowedMemoryMib } from "@/lib/protocol";

export interface MemoryVerdict {
  ok: boolean;
  peak_mib: number;
  allowed_mib: number;
}

/** The peak of the device-memory samples (MiB) against GPU_MEMORY_UTILIZATION × device + slack. */
export function memoryVerdict(
  samplesMib: readonly number[],
  deviceTotalMib: number,
  utilization: number,
  slackMib: number,
): MemoryVerdict {
  if (samplesMib.length === 0) throw new Error("no device memory samples: the memory gate cannot be judged");
  if (!(deviceTotalMib > 0)) throw new Error(`device total memory must be positive, got ${deviceTotalMib}`);
  if (!(utilization > 0 && utilization <= 1))
    throw new Error(`GPU_MEMORY_UTILIZATION must be in (0, 1], got ${utilization}`);
  let peak = Number.NEGATIVE_INFINITY;
  for (const s of samplesMib) {
    if (!Number.isFinite(s) || s < 0) throw new Error(`device memory sample is not a MiB count: ${s}`);
    if (s > peak) peak = s;
  }
  const allowed = allowedMemoryMib(deviceTotalMib, utilization, slackMib);
  return { ok: peak <= allowed, peak_mib: peak, allowed_mib: Math.round(allowed * 10) / 10 };
}

/** The highest reading, or null when none was taken (an engine that was never sampled shows no peak). */
export function peakMib(samplesMib: readonly number[]): number | null {
  let peak: number | null = null;
  for (const s of samplesMib) if (Number.isFinite(s) && s >= 0 && (peak === null || s > peak)) peak = s;
  return peak;
}
