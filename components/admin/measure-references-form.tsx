"use client";

import { useActionState, useId, useState } from "react";
import { type ActionState, measureReferencesAction } from "@/app/admin/actions";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { formFields, SelectField } from "@/components/ui/field";
import { FormMessage } from "@/components/ui/form-error";

/** The operators' one action that measures every reference of each task under a chosen profile. */
export function MeasureReferencesForm({
  count,
  profiles,
  defaultProfile,
}: {
  /** References an engine plays on this runtime, over every task. */
  count: number;
  /** Each profile with what one evaluation under it takes ("about 1 h 04 min here"). */
  profiles: { name: string; duration: string }[];
  /** What the arena's runtime can afford: the full protocol on a GPU, a short profile on the simulated engine. */
  defaultProfile: string;
}) {
  const [state, action, pending] = useActionState<ActionState, FormData>(measureReferencesAction, null);
  const [profile, setProfile] = useState(defaultProfile);
  const field = formFields(useId(), "sm");
  const duration = profiles.find((p) => p.name === profile)?.duration ?? "";
  return (
    <div className="space-y-2">
      <form action={action} className="grid gap-3 sm:grid-cols-[12rem_8rem_auto] sm:items-end">
        <SelectField
          {...field("profile", "Profile")}
          name="profile"
          value={profile}
          onChange={(e) => setProfile(e.target.value)}
          options={profiles.map((p) => ({
            value: p.name,
            label: p.name === "full" ? "full (the board's own)" : `${p.name} (labelled)`,
          }))}
        />
        <SelectField {...field("split", "Split")} name="split" defaultValue="test" options={["test", "dev"]} />
        <ConfirmSubmit
          tone="primary"
          pending={pending}
          pendingLabel="Queuing…"
          title={`Measure all ${count} references under ${profile}?`}
          description={
            <p>
              This queues {count} evaluations on the reference account, each {duration}, A/A runs first. They hold the
              GPU slots until they finish; each appears on its board once scored
              {profile === "full" ? "" : `, labelled "profile: ${profile}"`}.
            </p>
          }
          confirmLabel={`Yes, queue ${count} evaluations`}
        >
          Measure the references
        </ConfirmSubmit>
      </form>
      <p className="text-xs text-slate-600">
        Under {profile}, one evaluation takes {duration}.
      </p>
      {state ? (
        <FormMessage ok={state.ok}>
          <span data-testid="measure-references-result">{state.message}</span>
        </FormMessage>
      ) : null}
    </div>
  );
}
