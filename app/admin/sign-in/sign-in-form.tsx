"use client";

import { useRouter } from "next/navigation";
import { signIn } from "next-auth/react";
import { type FormEvent, useId, useState } from "react";
import { formFields, TextField } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { SubmitButton } from "@/components/ui/submit-button";
import { useHydrated } from "@/components/ui/use-hydrated";

export function SignInForm({ callbackUrl, initialError }: { callbackUrl: string; initialError: string | null }) {
  const router = useRouter();
  const field = formFields(useId());
  const [error, setError] = useState(initialError);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const form = new FormData(event.currentTarget);
    const result = await signIn("credentials", {
      redirect: false,
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      callbackUrl,
    });
    if (!result || result.error) {
      setError(
        result?.error === "RateLimited"
          ? "Too many sign-in attempts: wait a few minutes, then try again."
          : "Sign-in failed: check the email and password.",
      );
      setBusy(false);
      return;
    }
    router.push(callbackUrl);
    router.refresh();
  }

  return (
    <form method="post" onSubmit={onSubmit} className="space-y-3">
      <TextField {...field("email", "Email")} name="email" type="email" autoComplete="username" required />
      <TextField
        {...field("password", "Password")}
        name="password"
        type="password"
        autoComplete="current-password"
        required
      />
      <FormError message={error} />
      <SubmitButton pending={busy} pendingLabel="Signing in…" disabled={!hydrated}>
        Sign in
      </SubmitButton>
    </form>
  );
}
