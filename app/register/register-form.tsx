"use client";

import { type FormEvent, useId, useState } from "react";
import { TokenReveal } from "@/components/ui/token-reveal";
import { useHydrated } from "@/components/ui/use-hydrated";

export function RegisterForm() {
  const id = useId();
  const [issued, setIssued] = useState<{ token: string; account: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setError(null);
    setBusy(true);
    const name = String(new FormData(event.currentTarget).get("name") ?? "").trim();
    try {
      const response = await fetch("/api/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name }),
      });
      const body = (await response.json()) as { token?: string; account?: string; error?: { message: string } };
      if (!response.ok || !body.token) throw new Error(body.error?.message ?? `the arena answered ${response.status}`);
      setIssued({ token: body.token, account: body.account ?? name });
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  if (issued) return <TokenReveal token={issued.token} account={issued.account} />;
  return (
    <form method="post" onSubmit={onSubmit} className="space-y-3">
      <div>
        <label htmlFor={`${id}-name`} className="block font-medium">
          Account name
        </label>
        <input
          id={`${id}-name`}
          name="name"
          required
          minLength={2}
          maxLength={60}
          className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          aria-describedby={`${id}-hint`}
        />
        <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
          2 to 60 characters: letters, digits, spaces and . _ - ( )
        </p>
      </div>
      {error ? (
        <p role="alert" className="text-sm text-red-800">
          {error}
        </p>
      ) : null}
      <button
        type="submit"
        disabled={busy || !hydrated}
        className="rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:opacity-60"
      >
        {busy ? "Registering…" : "Get my token"}
      </button>
    </form>
  );
}
