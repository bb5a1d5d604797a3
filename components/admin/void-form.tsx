"use client";

import { useActionState, useId } from "react";
import { type ActionState, voidEvaluationAction } from "@/app/admin/actions";
import { formFields, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-error";
import { SubmitButton } from "@/components/ui/submit-button";

export function VoidForm() {
  const [state, action, pending] = useActionState<ActionState, FormData>(voidEvaluationAction, null);
  const field = formFields(useId(), "sm");
  return (
    <div className="space-y-2">
      <form action={action} className="grid gap-3 sm:grid-cols-[16rem_1fr_auto] sm:items-end">
        <TextField {...field("eval", "Evaluation id")} name="evaluationId" required className="font-mono text-sm" />
        <TextField
          {...field("reason", "Reason (shown on its page)")}
          name="reason"
          required
          minLength={3}
          maxLength={300}
        />
        <SubmitButton pending={pending} pendingLabel="Voiding…" tone="danger">
          Void and refund
        </SubmitButton>
      </form>
      {state ? <FormMessage ok={state.ok}>{state.message}</FormMessage> : null}
    </div>
  );
}
