const gib = (mib: number) => `${(mib / 1024).toFixed(1)} GiB`;

/** The live reading: held to its limit, never to the device's size (which invites the wrong comparison). */
export function LiveMemory({
  memory,
}: {
  memory: { usedMib: number; totalMib: number | null; limitMib?: number; engine?: string; window?: string };
}) {
  const whose = memory.engine
    ? ` (${memory.engine}${memory.window === "startup" ? ", start-up" : memory.window === "pass" ? ", timed pass" : ""})`
    : "";
  return (
    <div>
      <dt className="text-slate-600">Device memory{whose}</dt>
      <dd className="font-medium tabular-nums" data-testid="live-memory">
        {gib(memory.usedMib)}
        {memory.limitMib !== undefined ? ` of its ${gib(memory.limitMib)} limit` : ""}
        {memory.limitMib !== undefined ? (
          <span className="block text-xs font-normal text-slate-600">
            GPU_MEMORY_UTILIZATION × {memory.totalMib ? `the device's ${gib(memory.totalMib)}` : "the device"} + slack
            {memory.window === "startup" || memory.engine === "stock" ? "; not gated" : ""}
          </span>
        ) : null}
      </dd>
    </div>
  );
}
