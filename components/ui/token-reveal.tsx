import { CopyButton } from "./copy-button";

/** A token shown once, with a copy button and the warning that it will not be shown again. */
export function TokenReveal({ token, account }: { token: string; account: string }) {
  return (
    <section className="rounded border border-amber-400 bg-amber-50 p-4" aria-label="New token">
      <p className="font-semibold">The token for {account}</p>
      <p className="mt-1 text-sm text-amber-950">
        Copy it now: it is shown once and never again. The arena keeps only its hash.
      </p>
      <div className="mt-3 flex flex-wrap items-center gap-3">
        <code className="rounded bg-white px-2 py-1 font-mono text-sm break-all" data-testid="new-token">
          {token}
        </code>
        <CopyButton value={token} label="Copy token" />
      </div>
    </section>
  );
}
