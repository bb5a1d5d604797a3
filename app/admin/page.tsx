import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { IssueTokenForm } from "@/components/admin/issue-token-form";
import { LiveQueue } from "@/components/admin/live-queue";
import { MeasureReferencesForm } from "@/components/admin/measure-references-form";
import { RunReferenceForm } from "@/components/admin/run-reference-form";
import { SignOutButton } from "@/components/admin/sign-out-button";
import { StartCalibrationForm } from "@/components/admin/start-calibration-form";
import { VoidForm } from "@/components/admin/void-form";
import { ConfirmSubmit } from "@/components/ui/confirm-submit";
import { DataTable, type TableSpec } from "@/components/ui/data-table";
import { Section } from "@/components/ui/section";
import { type CalibrationListing, listCalibrations } from "@/lib/admin/list-calibrations";
import { listQueue } from "@/lib/admin/list-queue";
import { referencePlan } from "@/lib/admin/measure-references";
import { calibrationPlan, MAX_AA_RUNS } from "@/lib/admin/start-calibration";
import { currentAdmin } from "@/lib/auth/admin-session";
import { formatScore, formatShare, formatShortTime } from "@/lib/board/format";
import { profileTimings, timingWords } from "@/lib/board/profile-timing";
import { env } from "@/lib/env";
import { recentDurations } from "@/lib/evaluations/recent-durations";
import { referenceEngine } from "@/lib/pods/reference-engines/reference-engines";
import { currentProtocol, type TaskId } from "@/lib/protocol";
import { isRegistrationOpen } from "@/lib/settings/registration";
import { listTokens, type TokenListing } from "@/lib/tokens/list-tokens";
import { revokeTokenAction, setRegistrationAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin" };

const TOKEN_TABLE: TableSpec<TokenListing> = {
  minWidth: "min-w-[44rem]",
  rowKey: (t) => t.id,
  rowAttributes: (t) => ({ "data-token-prefix": t.prefix }),
  columns: [
    { header: "Prefix", className: "font-mono", cell: (t) => `${t.prefix}…` },
    { header: "Account", cell: (t) => t.accountName },
    { header: "Kind", cell: (t) => t.accountKind },
    { header: "Label", cell: (t) => t.label ?? "" },
    { header: "Issued", className: "tabular-nums", cell: (t) => formatShortTime(t.createdAt) },
    {
      header: "Last used",
      className: "tabular-nums",
      cell: (t) => (t.lastUsedAt ? formatShortTime(t.lastUsedAt) : "never"),
    },
    {
      header: "State",
      cell: (t) =>
        t.revokedAt ? (
          <span className="text-slate-600">revoked {formatShortTime(t.revokedAt)}</span>
        ) : (
          <form action={revokeTokenAction}>
            <input type="hidden" name="tokenId" value={t.id} />
            <ConfirmSubmit
              tone="danger-outline"
              ariaLabel={`Revoke token ${t.prefix} of ${t.accountName}`}
              title={`Revoke ${t.prefix}… of ${t.accountName}?`}
              description={
                <p>
                  The token stops working at once, on the API and in the clients, and cannot be restored: the account
                  will need a new token to submit again.
                </p>
              }
              confirmLabel="Yes, revoke it"
            >
              Revoke
            </ConfirmSubmit>
          </form>
        ),
    },
  ],
};

const CALIBRATION_TABLE: TableSpec<CalibrationListing> = {
  minWidth: "min-w-[48rem]",
  rowKey: (c) => c.id,
  rowAttributes: (c) => ({ "data-calibration": c.id }),
  columns: [
    { header: "Started", className: "tabular-nums", cell: (c) => formatShortTime(c.createdAt) },
    { header: "Task", cell: (c) => c.taskId },
    { header: "Profile", cell: (c) => `${c.profile} · ${c.split}` },
    { header: "A/A runs", className: "tabular-nums", cell: (c) => c.aaRuns },
    {
      header: "Progress",
      className: "tabular-nums",
      cell: (c) => (c.reportedAt ? "reported" : `${c.finished} of ${c.total} final`),
    },
    {
      header: "Evaluations",
      cell: (c) => (
        <ul className="flex flex-wrap gap-x-2">
          {c.runs.map((r, i) => (
            <li key={r.evaluationId}>
              <a href={`/evaluations/${r.evaluationId}`} data-calibration-run={r.evaluationId}>
                {r.group === "aa" ? `A/A ${i + 1}` : r.referenceKey}
              </a>{" "}
              <span className="text-xs text-slate-600">{r.status}</span>
            </li>
          ))}
        </ul>
      ),
    },
    {
      header: "A/A SpecScore error",
      className: "tabular-nums",
      cell: (c) =>
        c.headline
          ? `mean ${formatShare(c.headline.aaErrorMean)}, max ${formatShare(c.headline.aaErrorMax)}`
          : (c.failure ?? "–"),
    },
    {
      header: "References",
      cell: (c) =>
        c.headline ? c.headline.references.map((r) => `${r.key} ${formatScore(r.specscore)}`).join(", ") : "–",
    },
    {
      header: "Report",
      cell: (c) =>
        c.headline ? (
          <a href={`/api/admin/calibrations/${c.id}/report`} download>
            JSON{c.headline.gatesPassed ? "" : " (a gate failed)"}
          </a>
        ) : (
          "–"
        ),
    },
  ],
};

export default async function AdminPage() {
  const admin = await currentAdmin();
  if (!admin) redirect("/admin/sign-in?callbackUrl=%2Fadmin");
  const [tokens, registrationOpen, queue, durations, calibrations] = await Promise.all([
    listTokens(),
    isRegistrationOpen(),
    listQueue(),
    recentDurations(),
    listCalibrations(),
  ]);
  const protocol = currentProtocol();
  // Only the references an engine plays on this arena's runtime are offered; the rest say why not.
  const runtime = env().ENGINE_RUNTIME;
  const tasks = Object.values(protocol.tasks).map((t) => {
    const plans = t.references.map((r) => ({ reference: r, engine: referenceEngine(runtime, r) }));
    return {
      id: t.id,
      name: t.name,
      references: plans.filter((p) => p.engine.ok).map(({ reference: r }) => ({ key: r.key, label: r.label })),
      unavailable: plans.flatMap(({ reference: r, engine }) => (engine.ok ? [] : [`${r.key}: ${engine.why}`])),
    };
  });
  const unavailable = tasks.flatMap((t) => t.unavailable.map((why) => `${t.id} ${why}`));
  const timings = profileTimings(protocol.profiles, durations).map((t) => ({
    name: t.name,
    duration: timingWords(t),
  }));

  return (
    <div className="space-y-10">
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold">Operators</h1>
        <p className="text-sm text-slate-700">
          Signed in as {admin.email}. <SignOutButton />
        </p>
      </header>

      <Section id="registration" title="Registration">
        <form action={setRegistrationAction} className="mt-2 flex flex-wrap items-center gap-3">
          <p data-testid="registration-state">
            Registration is <strong>{registrationOpen ? "open" : "closed"}</strong>
            {registrationOpen ? (
              <>
                : <a href="/register">/register</a> hands out tokens.
              </>
            ) : (
              ": accounts are by invitation."
            )}
          </p>
          <input type="hidden" name="open" value={registrationOpen ? "false" : "true"} />
          <button type="submit" className="rounded border border-slate-500 px-3 py-1.5 font-medium hover:bg-slate-50">
            {registrationOpen ? "Close registration" : "Open registration"}
          </button>
        </form>
      </Section>

      <Section id="tokens" title="Invitation tokens" className="space-y-4">
        <IssueTokenForm />
        {tokens.length === 0 ? (
          <p className="text-slate-600">No token has been issued yet: issue the first one above.</p>
        ) : (
          <DataTable spec={TOKEN_TABLE} rows={tokens} caption="Issued tokens, by their prefix" testId="tokens-table" />
        )}
      </Section>

      <Section id="references" title="Reference and A/A evaluations" className="space-y-2">
        <p className="max-w-prose text-sm text-slate-700">
          Runs a reference speculator of the protocol (or the stock engine against itself) on the reference account,
          judged exactly as submissions are;{" "}
          {runtime === "sim"
            ? "on this arena the simulated engine plays each reference."
            : "on this arena each reference runs its own engine directory on the pinned vLLM."}
        </p>
        <h3 className="pt-2 font-semibold">Every reference at once</h3>
        <MeasureReferencesForm
          count={referencePlan(runtime).runnable.length}
          profiles={timings}
          defaultProfile={runtime === "sim" ? "smoke" : "full"}
        />
        <h3 className="pt-4 font-semibold">One reference</h3>
        <RunReferenceForm tasks={tasks} profiles={protocol.profiles.map((p) => p.name)} />
        {unavailable.length > 0 ? (
          <div className="text-sm text-slate-700" data-testid="references-unavailable">
            <p>Not offered on this runtime:</p>
            <ul className="list-disc pl-5">
              {unavailable.map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          </div>
        ) : null}
      </Section>

      <Section id="calibration" title="Calibration" className="space-y-2">
        <p className="max-w-prose text-sm text-slate-700">
          Protocol section 10: A/A evaluations (the stock engine against itself) and every reference of a task, under
          one profile, judged as submissions are. Once the last one ends its report is built from their records: the A/A
          SpecScore error, each gate&apos;s statistic against its limit, the stock engine&apos;s cache hit against the
          data card and the sampling audit. A full-profile report is the evidence the protocol&apos;s calibrated values
          are published with (<a href="/protocol">/protocol</a>).
        </p>
        <StartCalibrationForm
          tasks={Object.values(protocol.tasks).map((t) => ({
            id: t.id,
            name: t.name,
            references: calibrationPlan(t.id as TaskId, 0, runtime).runs.length,
          }))}
          profiles={timings}
          defaultProfile={runtime === "sim" ? "smoke" : "full"}
          maxAa={MAX_AA_RUNS}
        />
        {calibrations.length === 0 ? (
          <p className="text-slate-600">No calibration has been started yet.</p>
        ) : (
          <DataTable
            spec={CALIBRATION_TABLE}
            rows={calibrations}
            caption="Calibrations, newest first"
            testId="calibrations-table"
          />
        )}
      </Section>

      <Section id="queue" title="Queue and running pods" className="space-y-2">
        <LiveQueue initial={queue} />
      </Section>

      <Section id="void" title="Void and refund" className="space-y-2">
        <p className="max-w-prose text-sm text-slate-700">
          For an evaluation that went wrong for the arena&apos;s own reasons: it is marked void (never ranked) and its
          budget charge is refunded, once. A finished evaluation cannot be voided.
        </p>
        <VoidForm />
      </Section>
    </div>
  );
}
