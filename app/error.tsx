"use client";

export default function ErrorPage({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="max-w-prose space-y-3">
      <h1 className="text-2xl font-semibold">This page could not be shown</h1>
      <p className="text-slate-700">
        The arena could not read what this page needs, perhaps because its database is not reachable. Try again; if it
        keeps failing, tell the operators{error.digest ? ` and quote ${error.digest}` : ""}.
      </p>
      <button
        type="button"
        onClick={reset}
        className="rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800"
      >
        Try again
      </button>
    </div>
  );
}
