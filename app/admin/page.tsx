import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { IssueTokenForm } from "@/components/admin/issue-token-form";
import { RunReferenceForm } from "@/components/admin/run-reference-form";
import { SignOutButton } from "@/components/admin/sign-out-button";
import { VoidForm } from "@/components/admin/void-form";
import { listQueue, type QueueRow } from "@/lib/admin/list-queue";
import { currentAdmin } from "@/lib/auth/admin-session";
import { formatShortTime } from "@/lib/board/format";
import { currentProtocol } from "@/lib/protocol";
import { isRegistrationOpen } from "@/lib/settings/registration";
import { listTokens } from "@/lib/tokens/list-tokens";
import { revokeTokenAction, setRegistrationAction } from "./actions";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Admin" };

export default async function AdminPage() {
  const admin = await currentAdmin();
  if (!admin) redirect("/admin/sign-in?callbackUrl=%2Fadmin");
  const [tokens, registrationOpen, queue] = await Promise.all([listTokens(), isRegistrationOpen(), listQueue()]);
  const protocol = currentProtocol();
  const tasks = Object.values(protocol.tasks).map((t) => ({
    id: t.id,
    name: t.name,
    references: t.references.map((r) => ({ key: r.key, label: r.label })),
  }));

  return (
    <div className="space-y-10">
      <header className="flex flex-wrap items-baseline justify-between gap-2">
        <h1 className="text-2xl font-semibold">Operators</h1>
        <p className="text-sm text-slate-700">
          Signed in as {admin.email}. <SignOutButton />
        </p>
      </header>

      <section aria-labelledby="registration">
        <h2 id="registration" className="text-xl font-semibold">
          Registration
        </h2>
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
      </section>

      <section aria-labelledby="tokens" className="space-y-4">
        <h2 id="tokens" className="text-xl font-semibold">
          Invitation tokens
        </h2>
        <IssueTokenForm />
        {tokens.length === 0 ? (
          <p className="text-slate-600">No token has been issued yet: issue the first one above.</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="w-full min-w-[44rem] border-collapse text-sm" data-testid="tokens-table">
              <caption className="sr-only">Issued tokens, by their prefix</caption>
              <thead>
                <tr className="border-b border-slate-300 text-left">
                  <th scope="col" className="py-2 pr-2">
                    Prefix
                  </th>
                  <th scope="col" className="py-2 pr-2">
                    Account
                  </th>
                  <th scope="col" className="py-2 pr-2">
                    Kind
                  </th>
                  <th scope="col" className="py-2 pr-2">
                    Label
                  </th>
                  <th scope="col" className="py-2 pr-2">
                    Issued
                  </th>
                  <th scope="col" className="py-2 pr-2">
                    Last used
                  </th>
                  <th scope="col" className="py-2">
                    State
                  </th>
                </tr>
              </thead>
              <tbody>
                {tokens.map((t) => (
                  <tr key={t.id} className="border-b border-slate-100" data-token-prefix={t.prefix}>
                    <td className="py-2 pr-2 font-mono">{t.prefix}…</td>
                    <td className="py-2 pr-2">{t.accountName}</td>
                    <td className="py-2 pr-2">{t.accountKind}</td>
                    <td className="py-2 pr-2">{t.label ?? ""}</td>
                    <td className="py-2 pr-2 tabular-nums">{formatShortTime(t.createdAt)}</td>
                    <td className="py-2 pr-2 tabular-nums">{t.lastUsedAt ? formatShortTime(t.lastUsedAt) : "never"}</td>
                    <td className="py-2">
                      {t.revokedAt ? (
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
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section aria-labelledby="references" className="space-y-2">
        <h2 id="references" className="text-xl font-semibold">
          Reference and A/A evaluations
        </h2>
        <p className="max-w-prose text-sm text-slate-700">
          Runs a reference speculator of the protocol (or the stock engine against itself) on the reference account,
          judged exactly as submissions are; on this arena the simulated engine plays each reference.
        </p>
        <RunReferenceForm tasks={tasks} profiles={protocol.profiles.map((p) => p.name)} />
      </section>

      <section aria-labelledby="queue" className="space-y-4">
        <h2 id="queue" className="text-xl font-semibold">
          Queue and running pods
        </h2>
        <QueueTable caption="Running" rows={queue.running} empty="No evaluation is running." showPod />
        <QueueTable caption="Queued" rows={queue.queued} empty="The queue is empty." />
      </section>

      <section aria-labelledby="void" className="space-y-2">
        <h2 id="void" className="text-xl font-semibold">
          Void and refund
        </h2>
        <p className="max-w-prose text-sm text-slate-700">
          For an evaluation that went wrong for the arena&apos;s own reasons: it is marked void (never ranked) and its
          budget charge is refunded, once. A finished evaluation cannot be voided.
        </p>
        <VoidForm />
      </section>
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
        <div className="mt-1 overflow-x-auto">
          <table className="w-full min-w-[52rem] border-collapse text-sm">
            <caption className="sr-only">{caption} evaluations</caption>
            <thead>
              <tr className="border-b border-slate-300 text-left">
                <th scope="col" className="py-2 pr-2">
                  Evaluation
                </th>
                <th scope="col" className="py-2 pr-2">
                  Account
                </th>
                <th scope="col" className="py-2 pr-2">
                  Task · split · profile
                </th>
                <th scope="col" className="py-2 pr-2">
                  State · phase
                </th>
                {showPod ? (
                  <th scope="col" className="py-2 pr-2">
                    Pod · worker
                  </th>
                ) : null}
                <th scope="col" className="py-2">
                  Queued
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r.evaluationId} className="border-b border-slate-100">
                  <td className="py-2 pr-2 font-mono text-xs">
                    <a href={`/evaluations/${r.evaluationId}`}>{r.evaluationId}</a>
                  </td>
                  <td className="py-2 pr-2">{r.account}</td>
                  <td className="py-2 pr-2">
                    {r.taskId} · {r.split} · {r.profile}
                  </td>
                  <td className="py-2 pr-2">
                    {r.status}
                    {r.phase ? ` · ${r.phase}` : ""}
                  </td>
                  {showPod ? (
                    <td className="py-2 pr-2 font-mono text-xs">
                      {r.podId ?? "—"} · {r.leaseOwner ?? "—"} (attempt {r.attempt})
                    </td>
                  ) : null}
                  <td className="py-2 tabular-nums">{formatShortTime(r.queuedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
