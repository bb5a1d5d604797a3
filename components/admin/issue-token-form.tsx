"use client";

import { useActionState, useId } from "react";
import { type ActionState, issueTokenAction } from "@/app/admin/actions";
import { TokenReveal } from "@/components/ui/token-reveal";

export function IssueTokenForm() {
  const [state, action, pending] = useActionState<ActionState, FormData>(issueTokenAction, null);
  const id = useId();
  return (
    <div className="space-y-3">
      <form action={action} className="grid gap-3 sm:grid-cols-[1fr_10rem_1fr_auto] sm:items-end">
        <div>
          <label htmlFor={`${id}-account`} className="block text-sm font-medium">
            Account name
          </label>
          <input
            id={`${id}-account`}
            name="accountName"
            required
            minLength={2}
            maxLength={60}
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          />
        </div>
        <div>
          <label htmlFor={`${id}-kind`} className="block text-sm font-medium">
            Kind
          </label>
          <select
            id={`${id}-kind`}
            name="kind"
            defaultValue="participant"
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          >
            <option value="participant">participant</option>
            <option value="study">study</option>
            <option value="reference">reference</option>
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-label`} className="block text-sm font-medium">
            Label (optional)
          </label>
          <input
            id={`${id}-label`}
            name="label"
            maxLength={80}
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          />
        </div>
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:opacity-60"
        >
          {pending ? "Issuing…" : "Issue token"}
        </button>
      </form>
      {state && !state.ok ? (
        <p role="alert" className="text-sm text-red-800">
          {state.message}
        </p>
      ) : null}
      {state?.ok && state.token ? <TokenReveal token={state.token} account={state.account ?? ""} /> : null}
    </div>
  );
}
