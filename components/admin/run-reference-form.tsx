"use client";

import { useActionState, useId, useState } from "react";
import { type ActionState, runReferenceAction } from "@/app/admin/actions";
import { formFields, SelectField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-error";
import { SubmitButton } from "@/components/ui/submit-button";

const SPLITS = ["test", "dev"];

export function RunReferenceForm({
  tasks,
  profiles,
}: {
  tasks: { id: string; name: string; references: { key: string; label: string }[] }[];
  profiles: string[];
}) {
  const [state, action, pending] = useActionState<ActionState, FormData>(runReferenceAction, null);
  const [taskId, setTaskId] = useState(tasks[0]?.id ?? "");
  const field = formFields(useId(), "sm");
  const references = tasks.find((t) => t.id === taskId)?.references ?? [];
  return (
    <div className="space-y-2">
      <form action={action} className="grid gap-3 sm:grid-cols-5 sm:items-end">
        <SelectField
          {...field("task", "Task")}
          name="taskId"
          value={taskId}
          onChange={(e) => setTaskId(e.target.value)}
          options={tasks.map((t) => ({ value: t.id, label: t.name }))}
        />
        <SelectField
          {...field("ref", "Reference")}
          name="referenceKey"
          options={references.map((r) => ({
            value: r.key,
            label: r.key === "stock" ? `${r.label}: the A/A run` : r.label,
          }))}
        />
        <SelectField {...field("split", "Split")} name="split" defaultValue="test" options={SPLITS} />
        <SelectField {...field("profile", "Profile")} name="profile" defaultValue="full" options={profiles} />
        <SubmitButton pending={pending} pendingLabel="Queuing…">
          Run
        </SubmitButton>
      </form>
      {state ? (
        <FormMessage ok={state.ok}>
          {state.message}
          {state.ok && state.evaluationId ? (
            <>
              {": "}
              <a href={`/evaluations/${state.evaluationId}`}>watch it</a>
            </>
          ) : null}
        </FormMessage>
      ) : null}
    </div>
  );
}
