export function PageLoading() {
  return (
    <div role="status" aria-live="polite" className="animate-pulse space-y-3">
      <span className="sr-only">Loading…</span>
      <div className="h-7 w-1/3 rounded bg-slate-200" />
      <div className="h-4 w-2/3 rounded bg-slate-200" />
      <div className="h-48 w-full rounded bg-slate-100" />
    </div>
  );
}
