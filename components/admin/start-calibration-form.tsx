"use client";

import { useActionState, useId, useState } from "react";
import { type ActionState, startCalibrationAction } from "@/app/admin/actions";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { formFields, SelectField, TextField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-error";

/** The operators' calibration (protocol section 10): A/A runs and every reference of a task under one profile. */
export function StartCalibrationForm({
  tasks,
  profiles,
  defaultProfile,
  maxAa,
}: {
  /** Each task with the references an engine plays on this runtime (the stock engine's A/A runs aside). */
  tasks: { id: string; name: string; references: number }[];
  /** Each profile with what one evaluation under it takes. */
  profiles: { name: string; duration: string }[];
  defaultProfile: string;
  maxAa: number;
}) {
  const [state, action, pending] = useActionState<ActionState, FormData>(startCalibrationAction, null);
  const [taskId, setTaskId] = useState(tasks[0]?.id ?? "");
  const [profile, setProfile] = useState(defaultProfile);
  const [aa, setAa] = useState("4");
  const field = formFields(useId(), "sm");
  const references = tasks.find((t) => t.id === taskId)?.references ?? 0;
  const runs = (Number.parseInt(aa, 10) || 0) + references;
  const duration = profiles.find((p) => p.name === profile)?.duration ?? "";
  return (
    <div className="space-y-2">
      <form action={action} className="grid gap-3 sm:grid-cols-[12rem_12rem_7rem_7rem_auto] sm:items-end">
        <SelectField
          {...field("task", "Task")}
          name="taskId"
          value={taskId}
          onChange={(e) => setTaskId(e.target.value)}
          options={tasks.map((t) => ({ value: t.id, label: t.name }))}
        />
        <SelectField
          {...field("profile", "Profile")}
          name="profile"
          value={profile}
          onChange={(e) => setProfile(e.target.value)}
          options={profiles.map((p) => ({
            value: p.name,
            label: p.name === "full" ? "full (the evidence)" : `${p.name} (a trial)`,
          }))}
        />
        <TextField
          {...field("aa", "A/A runs")}
          name="aa"
          type="number"
          min={2}
          max={maxAa}
          value={aa}
          onChange={(e) => setAa(e.target.value)}
        />
        <SelectField {...field("split", "Split")} name="split" defaultValue="test" options={["test", "dev"]} />
        <ConfirmSubmit
          tone="primary"
          pending={pending}
          pendingLabel="Queuing…"
          title={`Calibrate ${taskId} under ${profile}?`}
          description={
            <p>
              This queues {runs} evaluations on the reference account ({aa} A/A runs, then {references} references),
              each {duration}. They hold the GPU slots until they finish; the report is built once the last one ends.
            </p>
          }
          confirmLabel={`Yes, queue ${runs} evaluations`}
        >
          Start the calibration
        </ConfirmSubmit>
      </form>
      {state ? (
        <FormMessage ok={state.ok}>
          <span data-testid="start-calibration-result">{state.message}</span>
        </FormMessage>
      ) : null}
    </div>
  );
}
