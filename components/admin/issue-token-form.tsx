"use client";

import { useActionState, useId } from "react";
import { type ActionState, issueTokenAction } from "@/app/admin/actions";
import { formFields, SelectField, TextField } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { SubmitButton } from "@/components/ui/submit-button";
import { TokenReveal } from "@/components/ui/token-reveal";

const KINDS = ["participant", "study", "reference"];

export function IssueTokenForm() {
  const [state, action, pending] = useActionState<ActionState, FormData>(issueTokenAction, null);
  const field = formFields(useId(), "sm");
  return (
    <div className="space-y-3">
      <form action={action} className="grid gap-3 sm:grid-cols-[1fr_10rem_1fr_auto] sm:items-end">
        <TextField {...field("account", "Account name")} name="accountName" required minLength={2} maxLength={60} />
        <SelectField {...field("kind", "Kind")} name="kind" defaultValue="participant" options={KINDS} />
        <TextField {...field("label", "Label (optional)")} name="label" maxLength={80} />
        <SubmitButton pending={pending} pendingLabel="Issuing…">
          Issue token
        </SubmitButton>
      </form>
      <FormError message={state && !state.ok ? state.message : null} />
      {state?.ok && state.token ? <TokenReveal token={state.token} account={state.account ?? ""} /> : null}
    </div>
  );
}
