"use client";

import { type FormEvent, useId, useState } from "react";
import { TextField } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { SubmitButton } from "@/components/ui/submit-button";
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
      <TextField
        id={`${id}-name`}
        label="Account name"
        name="name"
        required
        minLength={2}
        maxLength={60}
        hint={{ id: `${id}-hint`, text: "2 to 60 characters: letters, digits, spaces and . _ - ( )" }}
      />
      <FormError message={error} />
      <SubmitButton pending={busy} pendingLabel="Registering…" disabled={!hydrated}>
        Get my token
      </SubmitButton>
    </form>
  );
}
