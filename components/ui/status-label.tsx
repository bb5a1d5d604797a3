const STYLE: Record<string, string> = {
  queued: "bg-slate-100 text-slate-800",
  fetching: "bg-amber-100 text-amber-900",
  running: "bg-blue-100 text-blue-900",
  checking: "bg-indigo-100 text-indigo-900",
  scored: "bg-emerald-100 text-emerald-900",
  failed: "bg-red-100 text-red-900",
  void: "bg-zinc-200 text-zinc-900",
  cancelled: "bg-zinc-200 text-zinc-900",
};

/** An evaluation's state as a small label (text, not colour alone, carries the meaning). */
export function StatusLabel({ status }: { status: string }) {
  return (
    <span className={`inline-block rounded px-1.5 py-0.5 text-xs font-medium ${STYLE[status] ?? STYLE.queued}`}>
      {status}
    </span>
  );
}

/** A test profile's label: such a run is never ranked. */
export function ProfileLabel({ profile }: { profile: string }) {
  if (profile === "full") return null;
  return (
    <span
      className="inline-block rounded border border-amber-600 px-1.5 py-0.5 text-xs font-medium text-amber-900"
      title={`run under the "${profile}" test profile: shortened, labelled, never ranked`}
    >
      profile: {profile}
    </span>
  );
}

export function SplitLabel({ split }: { split: string }) {
  return <span className="text-xs text-slate-600">{split === "test" ? "scored" : "development"}</span>;
}
