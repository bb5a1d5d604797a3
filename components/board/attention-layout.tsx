import type { TaskSpec } from "@/lib/protocol";

/** The target's decoder layers by attention kind, as a proportional strip with its words beside it. */
export function AttentionLayout({ task }: { task: TaskSpec }) {
  const { full, linear, linearKind } = task.attention;
  const total = full + linear;
  return (
    <div>
      <div className="flex h-3 w-full overflow-hidden rounded" aria-hidden="true">
        <div className="bg-blue-700" style={{ width: `${(full / total) * 100}%` }} />
        {linear > 0 ? <div className="bg-teal-500" style={{ width: `${(linear / total) * 100}%` }} /> : null}
      </div>
      <p className="mt-1 text-sm text-slate-700">
        {full} attention{linear > 0 ? ` · ${linear} linear attention (${linearKind})` : ""}
      </p>
    </div>
  );
}
