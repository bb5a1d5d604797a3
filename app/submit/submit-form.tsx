"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { TableBody, TableHead, type TableSpec } from "@/components/ui/data-table";
import { formFields, SelectField, TextField } from "@/components/ui/field";
import { FormError } from "@/components/ui/form-error";
import { SubmitButton } from "@/components/ui/submit-button";
import { useHydrated } from "@/components/ui/use-hydrated";
import { TOKEN_STORAGE_KEY } from "@/lib/auth/token-storage";
import { formatShortTime } from "@/lib/board/format";
import { packFolder, toBase64 } from "@/lib/board/pack-folder";

interface BudgetLine {
  taskId: string;
  split: "dev" | "test";
  limit: number | null;
  used: number;
  remaining: number | null;
}

interface OwnSubmission {
  id: string;
  task_id: string;
  split: string;
  profile: string;
  solution: { method: string | null; kind: string };
  created_at: string;
  evaluation: { id: string; status: string; specscore: number | null } | null;
}

interface Account {
  name: string;
  budget: BudgetLine[];
  submissions: OwnSubmission[];
}

const TOKEN_KEY = TOKEN_STORAGE_KEY;

const BUDGET_TABLE: TableSpec<BudgetLine> = {
  pad: "py-1",
  gutter: "none",
  rowClassName: "border-t border-slate-100",
  rowKey: (b) => `${b.taskId}-${b.split}`,
  columns: [
    { header: "Task", cell: (b) => b.taskId },
    { header: "Split", cell: (b) => b.split },
    {
      header: "Left",
      align: "right",
      className: "tabular-nums",
      cell: (b) => (b.remaining === null ? "no limit" : `${b.remaining} of ${b.limit}`),
    },
  ],
};

async function apiError(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: { message?: string } };
    return body.error?.message ?? `the arena answered ${response.status}`;
  } catch {
    return `the arena answered ${response.status}`;
  }
}

/** Budget and own submissions in one round trip (two requests in parallel, never one after the other). */
async function loadAccount(token: string): Promise<Account> {
  const headers = { authorization: `Bearer ${token}` };
  const [budget, mine] = await Promise.all([
    fetch("/api/budget", { headers, cache: "no-store" }),
    fetch("/api/submissions?mine=1", { headers, cache: "no-store" }),
  ]);
  if (!budget.ok) throw new Error(await apiError(budget));
  if (!mine.ok) throw new Error(await apiError(mine));
  const b = (await budget.json()) as { account: string; budget: BudgetLine[] };
  const m = (await mine.json()) as { submissions: OwnSubmission[] };
  return { name: b.account, budget: b.budget, submissions: m.submissions };
}

export function SubmitForm({
  tasks,
  kinds,
  profiles,
  inlineMaxChars,
  methodMaxChars,
}: {
  tasks: { id: string; name: string }[];
  kinds: string[];
  /** Each profile with what one evaluation under it takes here ("about 1 h 04 min here (median of …)"). */
  profiles: { name: string; description: string; duration: string }[];
  inlineMaxChars: number;
  methodMaxChars: number;
}) {
  const router = useRouter();
  const id = useId();
  const field = formFields(id);
  const smallField = formFields(id, "sm");
  const [token, setToken] = useState("");
  const [account, setAccount] = useState<Account | null>(null);
  const [signInError, setSignInError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();
  const [taskId, setTaskId] = useState(tasks[0]?.id ?? "");
  const [split, setSplit] = useState<"dev" | "test">("dev");
  // the profile follows the split: a dev run is never ranked, so it defaults to the short smoke profile, and a test
  // run to the full protocol that ranks it; either can still be changed by hand
  const profileFor = (s: "dev" | "test") =>
    s === "test" ? "full" : (profiles.find((p) => p.name === "smoke")?.name ?? profiles[0]?.name ?? "full");
  const [profile, setProfile] = useState(() => profileFor("dev"));
  const signedInHeading = useRef<HTMLHeadingElement>(null);
  const focusOnSignIn = useRef(false);
  const [engineFrom, setEngineFrom] = useState<"folder" | "archive">("folder");
  const [folder, setFolder] = useState<FileList | null>(null);
  const [archive, setArchive] = useState<File | null>(null);
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [progress, setProgress] = useState<string | null>(null);

  const signIn = useCallback(async (candidate: string) => {
    setBusy(true);
    setSignInError(null);
    try {
      const loaded = await loadAccount(candidate.trim());
      sessionStorage.setItem(TOKEN_KEY, candidate.trim());
      setToken(candidate.trim());
      setAccount(loaded);
    } catch (error) {
      sessionStorage.removeItem(TOKEN_KEY);
      setAccount(null);
      setSignInError((error as Error).message);
    } finally {
      setBusy(false);
    }
  }, []);

  useEffect(() => {
    const saved = sessionStorage.getItem(TOKEN_KEY);
    if (saved) void signIn(saved);
  }, [signIn]);

  // after an explicit sign-in the form replaces the one that had focus: move focus to its heading, not to <body>
  useEffect(() => {
    if (account && focusOnSignIn.current) {
      focusOnSignIn.current = false;
      signedInHeading.current?.focus();
    }
  }, [account]);

  const line = account?.budget.find((b) => b.taskId === taskId && b.split === split);
  const exhausted = line?.remaining === 0;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setSubmitError(null);
    const form = new FormData(event.currentTarget);
    try {
      setBusy(true);
      setProgress("packing the engine…");
      let inline: string;
      if (engineFrom === "folder") {
        if (!folder || folder.length === 0) throw new Error("engine: choose the engine folder");
        const files = await Promise.all(
          Array.from(folder).map(async (f) => ({
            path: f.webkitRelativePath || f.name,
            data: new Uint8Array(await f.arrayBuffer()),
          })),
        );
        inline = (await packFolder(files)).base64;
      } else {
        if (!archive) throw new Error("engine: choose a .tar.gz file");
        inline = toBase64(new Uint8Array(await archive.arrayBuffer()));
      }
      if (inline.length > inlineMaxChars) {
        throw new Error(
          `engine: the packed archive is ${inline.length.toLocaleString("en")} base64 characters, over the ${inlineMaxChars.toLocaleString("en")} allowed inline; put the engine in a repository instead`,
        );
      }
      const specUri = String(form.get("speculator-uri") ?? "").trim();
      const specRevision = String(form.get("speculator-revision") ?? "").trim();
      const method = String(form.get("method") ?? "").trim();
      const body = {
        task_id: taskId,
        split,
        ...(specUri ? { speculator: { uri: specUri, revision: specRevision } } : {}),
        engine: { inline },
        solution: { ...(method ? { method } : {}), kind: String(form.get("kind")) },
        ...(profile !== "full" ? { profile } : {}),
      };
      setProgress("sending…");
      const response = await fetch("/api/submissions", {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(await apiError(response));
      const created = (await response.json()) as { id: string; evaluationId: string };
      setProgress("submitted: opening its evaluation…");
      router.push(`/evaluations/${created.evaluationId}`);
    } catch (error) {
      setSubmitError((error as Error).message);
      setProgress(null);
      setBusy(false);
    }
  }

  if (!account) {
    return (
      <form
        method="post"
        className="max-w-md space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          focusOnSignIn.current = true;
          void signIn(token);
        }}
      >
        <TextField
          {...field("token", "Arena token")}
          name="token"
          type="password"
          autoComplete="off"
          required
          placeholder="spa_…"
          value={token}
          onChange={(e) => setToken(e.target.value)}
          aria-describedby={signInError ? `${id}-token-error` : undefined}
        />
        <FormError id={`${id}-token-error`} message={signInError} />
        <SubmitButton pending={busy} pendingLabel="Signing in…" disabled={!hydrated}>
          Sign in
        </SubmitButton>
      </form>
    );
  }

  return (
    <div className="grid gap-8 lg:grid-cols-[1fr_20rem]">
      <form method="post" onSubmit={onSubmit} className="space-y-5" aria-describedby={`${id}-who`}>
        <div id={`${id}-who`} className="text-sm text-slate-700">
          <h2 ref={signedInHeading} tabIndex={-1} className="inline text-sm font-normal">
            Signed in as{" "}
            <span className="font-semibold" data-testid="account-name">
              {account.name}
            </span>
          </h2>
          .{" "}
          <button
            type="button"
            className="text-blue-700 underline"
            onClick={() => {
              sessionStorage.removeItem(TOKEN_KEY);
              setAccount(null);
              setToken("");
            }}
          >
            Sign out
          </button>
        </div>
        <div className="grid gap-4 sm:grid-cols-2">
          <SelectField
            {...field("task", "Task")}
            name="task"
            value={taskId}
            onChange={(e) => setTaskId(e.target.value)}
            options={tasks.map((t) => ({ value: t.id, label: `${t.name} (${t.id})` }))}
          />
          <fieldset>
            <legend className="font-medium">Split</legend>
            <div className="mt-2 flex gap-4">
              {(["dev", "test"] as const).map((s) => (
                <label key={s} className="inline-flex items-center gap-1.5">
                  <input
                    type="radio"
                    name="split"
                    value={s}
                    checked={split === s}
                    onChange={() => {
                      setSplit(s);
                      setProfile(profileFor(s));
                    }}
                  />
                  {s === "dev" ? "dev (public sessions)" : "test (hidden, scored)"}
                </label>
              ))}
            </div>
          </fieldset>
        </div>
        <p className="text-sm" aria-live="polite" data-testid="budget-line">
          {line
            ? line.remaining === null
              ? `No budget limit on this account for ${taskId} ${split}.`
              : `${line.remaining} of ${line.limit} ${split} evaluations left on ${taskId}.`
            : null}
          {exhausted ? " This budget is used up: choose another split or task." : ""}
        </p>

        <fieldset className="space-y-3 rounded border border-slate-200 p-3">
          <legend className="px-1 font-medium">Speculator (optional)</legend>
          <p className="text-sm text-slate-700">
            A Hugging Face repository at an exact commit; leave empty for a method without weights (n-gram, suffix, the
            target&apos;s own MTP).
          </p>
          <div className="grid gap-3 sm:grid-cols-2">
            <TextField {...smallField("spec-uri", "Repository")} name="speculator-uri" placeholder="org/name" />
            <TextField
              {...smallField("spec-rev", "Commit (40 hex)")}
              name="speculator-revision"
              pattern="[0-9a-f]{40}"
              title="an exact commit: 40 lowercase hex characters"
              className="font-mono text-sm"
            />
          </div>
        </fieldset>

        <fieldset className="space-y-3 rounded border border-slate-200 p-3">
          <legend className="px-1 font-medium">Engine directory</legend>
          <div className="flex flex-wrap gap-4 text-sm">
            <label className="inline-flex items-center gap-1.5">
              <input
                type="radio"
                name="engine-from"
                checked={engineFrom === "folder"}
                onChange={() => setEngineFrom("folder")}
              />
              a folder (packed here, in the browser)
            </label>
            <label className="inline-flex items-center gap-1.5">
              <input
                type="radio"
                name="engine-from"
                checked={engineFrom === "archive"}
                onChange={() => setEngineFrom("archive")}
              />
              a .tar.gz file
            </label>
          </div>
          {engineFrom === "folder" ? (
            <div>
              <label htmlFor={`${id}-folder`} className="block text-sm font-medium">
                Engine folder (with launch.sh at its top)
              </label>
              <input
                id={`${id}-folder`}
                type="file"
                webkitdirectory=""
                multiple
                onChange={(e) => setFolder(e.target.files)}
                className="mt-1 block w-full text-sm"
              />
              {folder && folder.length > 0 ? (
                <p className="mt-1 text-xs text-slate-600">
                  {folder.length === 1 ? "1 file" : `${folder.length} files`} chosen
                </p>
              ) : null}
            </div>
          ) : (
            <div>
              <label htmlFor={`${id}-archive`} className="block text-sm font-medium">
                Engine archive (.tar.gz)
              </label>
              <input
                id={`${id}-archive`}
                type="file"
                accept=".tar.gz,.tgz,application/gzip"
                onChange={(e) => setArchive(e.target.files?.[0] ?? null)}
                className="mt-1 block w-full text-sm"
              />
            </div>
          )}
          <p className="text-xs text-slate-600">
            At most {inlineMaxChars.toLocaleString("en")} base64 characters inline; larger engines go in a repository
            through the API.
          </p>
        </fieldset>

        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            {...field("method", "Method")}
            name="method"
            maxLength={methodMaxChars}
            placeholder="EAGLE-3 k=4"
          />
          <SelectField {...field("kind", "Kind")} name="kind" defaultValue="eagle3" options={kinds} />
        </div>
        <div>
          <SelectField
            {...field("profile", "Profile")}
            name="profile"
            value={profile}
            onChange={(e) => setProfile(e.target.value)}
            className="sm:w-auto"
            aria-describedby={`${id}-profile-note`}
            options={profiles.map((p) => ({
              value: p.name,
              label:
                p.name === "full"
                  ? `full: the protocol as published (${split === "test" ? "ranked" : "not ranked on dev"})`
                  : `${p.name}: test profile, labelled, never ranked`,
            }))}
          />
          <p id={`${id}-profile-note`} className="mt-1 text-sm text-slate-700" data-testid="profile-note">
            {(() => {
              const chosen = profiles.find((p) => p.name === profile);
              if (!chosen) return null;
              const ranked =
                chosen.name === "full"
                  ? split === "test"
                    ? "Ranked on the board."
                    : "Development runs are never ranked; the test split's full run is."
                  : "Labelled with its profile, never ranked.";
              return `${chosen.description[0]?.toUpperCase()}${chosen.description.slice(1)}: ${chosen.duration}. ${ranked}`;
            })()}
          </p>
        </div>

        {submitError ? (
          <p role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-900">
            {submitError}
          </p>
        ) : null}
        <div className="flex items-center gap-3">
          <SubmitButton pending={busy} disabled={exhausted || !hydrated}>
            Submit for evaluation
          </SubmitButton>
          {progress ? (
            <span role="status" className="text-sm text-slate-700">
              {progress}
            </span>
          ) : null}
        </div>
      </form>

      <aside aria-labelledby={`${id}-budget`} className="space-y-6">
        <section>
          <h2 id={`${id}-budget`} className="font-semibold">
            Your budget
          </h2>
          <table className="mt-2 w-full text-sm">
            <caption className="sr-only">Evaluations left per task and split</caption>
            <TableHead {...BUDGET_TABLE} className="text-left text-slate-700" />
            <TableBody spec={BUDGET_TABLE} rows={account.budget} />
          </table>
        </section>
        <section>
          <h2 className="font-semibold">Your submissions</h2>
          {account.submissions.length === 0 ? (
            <p className="mt-1 text-sm text-slate-600">None yet: your first one will be listed here.</p>
          ) : (
            <ul className="mt-2 space-y-1.5 text-sm">
              {account.submissions.slice(0, 20).map((s) => (
                <li key={s.id}>
                  <a href={`/evaluations/${s.evaluation?.id ?? s.id}`}>{s.solution.method || s.solution.kind}</a>{" "}
                  <span className="text-slate-600">
                    {s.task_id} · {s.split}
                    {s.profile !== "full" ? ` · profile ${s.profile}` : ""} · {s.evaluation?.status ?? "—"}
                    {s.evaluation?.specscore != null ? ` · ${s.evaluation.specscore.toFixed(3)}` : ""} ·{" "}
                    {formatShortTime(s.created_at)}
                  </span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </aside>
    </div>
  );
}
