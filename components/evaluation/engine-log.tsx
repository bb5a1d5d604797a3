"use client";

import { useEffect, useState } from "react";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { TOKEN_STORAGE_KEY } from "@/lib/auth/token-storage";

/**
 * A failing engine's last log lines, for its submitter and the operators only: the server renders them for an
 * operator (`initial`); a participant's browser asks the API with the token it signed in with, and the API answers
 * them only to the submitting account. Anyone else reads that the lines exist, not what they say.
 */
export function EngineLog({
  submissionId,
  evaluationId,
  initial,
}: {
  submissionId: string;
  evaluationId: string;
  initial: string | null;
}) {
  const [tail, setTail] = useState<string | null>(initial);
  useEffect(() => {
    if (initial !== null) return;
    const token = sessionStorage.getItem(TOKEN_STORAGE_KEY);
    if (!token) return;
    const controller = new AbortController();
    fetch(`/api/submissions/${encodeURIComponent(submissionId)}`, {
      headers: { authorization: `Bearer ${token}` },
      signal: controller.signal,
    })
      .then((response) => (response.ok ? response.json() : null))
      .then((view: { evaluation?: { id?: string; log_tail?: string | null } } | null) => {
        const evaluation = view?.evaluation;
        if (evaluation?.id === evaluationId && typeof evaluation.log_tail === "string") setTail(evaluation.log_tail);
      })
      .catch(() => undefined);
    return () => controller.abort();
  }, [initial, submissionId, evaluationId]);

  return (
    <details open={tail !== null} className="mt-3" data-testid="engine-log">
      <summary className="cursor-pointer text-sm font-medium">The engine&apos;s log, last lines</summary>
      {tail !== null ? (
        <ScrollRegion label="The engine's log" scroll="both" className="mt-2 max-h-96 rounded bg-slate-900">
          <pre className="p-3 text-xs text-slate-100">{tail}</pre>
        </ScrollRegion>
      ) : (
        <p className="mt-2 text-sm text-slate-700">
          Shown to the submitter (signed in with their token on <a href="/submit">the submit page</a>) and to the
          operators.
        </p>
      )}
    </details>
  );
}
