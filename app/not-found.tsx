export default function NotFound() {
  return (
    <div className="max-w-prose space-y-3">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <p className="text-slate-700">
        Nothing lives at this address. The <a href="/">leaderboard</a> lists every task, and each evaluation is linked
        from its board.
      </p>
    </div>
  );
}
