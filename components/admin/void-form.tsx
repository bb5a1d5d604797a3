"use client";

import { useActionState, useId } from "react";
import { type ActionState, voidEvaluationAction } from "@/app/admin/actions";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { formFields, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-error";

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
        <ConfirmSubmit
          pending={pending}
          pendingLabel="Voiding…"
          title="Void this evaluation and refund its charge?"
          description={
            <p>
              It is marked void for good: never ranked, its reason shown on its page, and its budget charge refunded. A
              running evaluation is stopped. This cannot be undone.
            </p>
          }
          confirmLabel="Yes, void it"
        >
          Void and refund
        </ConfirmSubmit>
      </form>
      {state ? <FormMessage ok={state.ok}>{state.message}</FormMessage> : null}
    </div>
  );
}
