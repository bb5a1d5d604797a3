"use client";

import { useActionState, useId } from "react";
import { type ActionState, voidEvaluationAction } from "@/app/admin/actions";

export function VoidForm() {
  const [state, action, pending] = useActionState<ActionState, FormData>(voidEvaluationAction, null);
  const id = useId();
  return (
    <div className="space-y-2">
      <form action={action} className="grid gap-3 sm:grid-cols-[16rem_1fr_auto] sm:items-end">
        <div>
          <label htmlFor={`${id}-eval`} className="block text-sm font-medium">
            Evaluation id
          </label>
          <input
            id={`${id}-eval`}
            name="evaluationId"
            required
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2 font-mono text-sm"
          />
        </div>
        <div>
          <label htmlFor={`${id}-reason`} className="block text-sm font-medium">
            Reason (shown on its page)
          </label>
          <input
            id={`${id}-reason`}
            name="reason"
            required
            minLength={3}
            maxLength={300}
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          />
        </div>
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-red-800 px-4 py-2 font-medium text-white hover:bg-red-900 disabled:opacity-60"
        >
          {pending ? "Voiding…" : "Void and refund"}
        </button>
      </form>
      {state ? (
        <p role={state.ok ? "status" : "alert"} className={`text-sm ${state.ok ? "text-emerald-800" : "text-red-800"}`}>
          {state.message}
        </p>
      ) : null}
    </div>
  );
}
