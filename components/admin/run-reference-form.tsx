"use client";

import { useActionState, useId, useState } from "react";
import { type ActionState, runReferenceAction } from "@/app/admin/actions";

export function RunReferenceForm({
  tasks,
  profiles,
}: {
  tasks: { id: string; name: string; references: { key: string; label: string }[] }[];
  profiles: string[];
}) {
  const [state, action, pending] = useActionState<ActionState, FormData>(runReferenceAction, null);
  const [taskId, setTaskId] = useState(tasks[0]?.id ?? "");
  const id = useId();
  const references = tasks.find((t) => t.id === taskId)?.references ?? [];
  return (
    <div className="space-y-2">
      <form action={action} className="grid gap-3 sm:grid-cols-5 sm:items-end">
        <div>
          <label htmlFor={`${id}-task`} className="block text-sm font-medium">
            Task
          </label>
          <select
            id={`${id}-task`}
            name="taskId"
            value={taskId}
            onChange={(e) => setTaskId(e.target.value)}
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          >
            {tasks.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-ref`} className="block text-sm font-medium">
            Reference
          </label>
          <select
            id={`${id}-ref`}
            name="referenceKey"
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          >
            {references.map((r) => (
              <option key={r.key} value={r.key}>
                {r.key === "stock" ? `${r.label}: the A/A run` : r.label}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-split`} className="block text-sm font-medium">
            Split
          </label>
          <select
            id={`${id}-split`}
            name="split"
            defaultValue="test"
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          >
            <option value="test">test</option>
            <option value="dev">dev</option>
          </select>
        </div>
        <div>
          <label htmlFor={`${id}-profile`} className="block text-sm font-medium">
            Profile
          </label>
          <select
            id={`${id}-profile`}
            name="profile"
            defaultValue="full"
            className="mt-1 w-full rounded border border-slate-400 px-3 py-2"
          >
            {profiles.map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        </div>
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:opacity-60"
        >
          {pending ? "Queuing…" : "Run"}
        </button>
      </form>
      {state ? (
        <p role={state.ok ? "status" : "alert"} className={`text-sm ${state.ok ? "text-emerald-800" : "text-red-800"}`}>
          {state.message}
          {state.ok && state.evaluationId ? (
            <>
              {": "}
              <a href={`/evaluations/${state.evaluationId}`}>watch it</a>
            </>
          ) : null}
        </p>
      ) : null}
    </div>
  );
}
