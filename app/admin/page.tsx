import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { IssueTokenForm } from "@/components/admin/issue-token-form";
import { RunReferenceForm } from "@/components/admin/run-reference-form";
import { SignOutButton } from "@/components/admin/sign-out-button";
import { VoidForm } from "@/components/admin/void-form";
import { type Column, DataTable, type TableSpec } from "@/components/ui/data-table";
import { Section } from "@/components/ui/section";
import { listQueue, type QueueRow } from "@/lib/admin/list-queue";
import { currentAdmin } from "@/lib/auth/admin-session";
import { formatShortTime } from "@/lib/board/format";
import { env } from "@/lib/env";
import { referenceEngine } from "@/lib/pods/reference-engines/reference-engines";
import { currentProtocol } from "@/lib/protocol";
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
            <button
              type="submit"
              className="rounded border border-red-700 px-2 py-1 text-red-800 hover:bg-red-50"
              aria-label={`Revoke token ${t.prefix} of ${t.accountName}`}
            >
              Revoke
            </button>
          </form>
        ),
    },
  ],
};

const POD_COLUMN: Column<QueueRow> = {
  header: "Pod · worker",
  className: "font-mono text-xs",
  cell: (r) => `${r.podId ?? "—"} · ${r.leaseOwner ?? "—"} (attempt ${r.attempt})`,
};

/** The queue's table; the pod column only where evaluations have one (the running). */
const QUEUE_TABLE: TableSpec<QueueRow> = {
  minWidth: "min-w-[52rem]",
  rowKey: (r) => r.evaluationId,
  columns: [
    {
      header: "Evaluation",
      className: "font-mono text-xs",
      cell: (r) => <a href={`/evaluations/${r.evaluationId}`}>{r.evaluationId}</a>,
    },
    { header: "Account", cell: (r) => r.account },
    { header: "Task · split · profile", cell: (r) => `${r.taskId} · ${r.split} · ${r.profile}` },
    { header: "State · phase", cell: (r) => `${r.status}${r.phase ? ` · ${r.phase}` : ""}` },
    POD_COLUMN,
    { header: "Queued", className: "tabular-nums", cell: (r) => formatShortTime(r.queuedAt) },
  ],
};
const QUEUE_TABLE_NO_POD: TableSpec<QueueRow> = {
  ...QUEUE_TABLE,
  columns: QUEUE_TABLE.columns.filter((c) => c !== POD_COLUMN),
};

export default async function AdminPage() {
  const admin = await currentAdmin();
  if (!admin) redirect("/admin/sign-in?callbackUrl=%2Fadmin");
  const [tokens, registrationOpen, queue] = await Promise.all([listTokens(), isRegistrationOpen(), listQueue()]);
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

      <Section id="queue" title="Queue and running pods" className="space-y-4">
        <QueueTable caption="Running" rows={queue.running} empty="No evaluation is running." showPod />
        <QueueTable caption="Queued" rows={queue.queued} empty="The queue is empty." />
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

function QueueTable({
  caption,
  rows,
  empty,
  showPod = false,
}: {
  caption: string;
  rows: QueueRow[];
  empty: string;
  showPod?: boolean;
}) {
  return (
    <div>
      <h3 className="font-semibold">
        {caption} ({rows.length})
      </h3>
      {rows.length === 0 ? (
        <p className="text-sm text-slate-600">{empty}</p>
      ) : (
        <DataTable
          className="mt-1"
          spec={showPod ? QUEUE_TABLE : QUEUE_TABLE_NO_POD}
          rows={rows}
          caption={`${caption} evaluations`}
        />
      )}
    </div>
  );
}
