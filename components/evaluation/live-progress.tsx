"use client";

import { useRouter } from "next/navigation";
import { useEffect, useReducer, useRef, useState } from "react";
import { formatDuration, formatTokensPerSecond, passNumber } from "@/lib/board/format";
import { applyEvent, initialLiveState, type LivePass, type LiveState } from "@/lib/board/live-progress";
import { LiveMemory } from "./live-memory";

const EVENT_TYPES = [
  "state",
  "status",
  "phase",
  "engine",
  "pass-started",
  "pass-progress",
  "pass-ended",
  "memory",
  "log",
  "result",
] as const;

type Action = { type: string; data: unknown; seq: number };

function reducer(state: LiveState, action: Action): LiveState {
  return applyEvent(state, action.type, action.data, action.seq);
}

/**
 * The running evaluation, live from its event stream: EventSource reconnects by itself and sends
 * Last-Event-ID, so the server replays what was missed. When the state changes the server-rendered
 * page is refreshed in place (no reload); once finished, it shows the verdict.
 */
export function LiveProgress({
  submissionId,
  status,
  phase,
  queuePosition,
}: {
  submissionId: string;
  status: string;
  phase: string | null;
  queuePosition: number | null;
}) {
  const router = useRouter();
  const [state, dispatch] = useReducer(reducer, initialLiveState(status, phase, queuePosition));
  const [connection, setConnection] = useState<"connecting" | "live" | "reconnecting">("connecting");
  const lastStatus = useRef(status);

  useEffect(() => {
    const source = new EventSource(`/api/submissions/${encodeURIComponent(submissionId)}/events`);
    source.onopen = () => setConnection("live");
    source.onerror = () => setConnection(source.readyState === EventSource.CLOSED ? "reconnecting" : "reconnecting");
    const listeners = EVENT_TYPES.map((type) => {
      const listener = (event: MessageEvent) => {
        let data: unknown = null;
        try {
          data = JSON.parse(event.data as string);
        } catch {
          return;
        }
        const seq = Number.parseInt(event.lastEventId, 10);
        dispatch({ type, data, seq: type === "state" || !Number.isFinite(seq) ? 0 : seq });
      };
      source.addEventListener(type, listener);
      return [type, listener] as const;
    });
    return () => {
      for (const [type, listener] of listeners) source.removeEventListener(type, listener);
      source.close();
    };
  }, [submissionId]);

  useEffect(() => {
    if (state.status !== lastStatus.current || state.finished) {
      lastStatus.current = state.status;
      router.refresh();
    }
  }, [state.status, state.finished, router]);

  const current = state.current;
  return (
    <section aria-labelledby="live" className="rounded border border-blue-200 bg-blue-50/40 p-4">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="live" className="text-lg font-semibold">
          Live progress
        </h2>
        <span className="text-xs text-slate-700" aria-live="polite">
          {connection === "live" ? "● live" : connection === "connecting" ? "connecting…" : "reconnecting…"}
        </span>
      </div>
      <dl className="mt-3 grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-4" aria-live="polite">
        <div>
          <dt className="text-slate-600">State</dt>
          <dd className="font-medium" data-testid="live-status">
            {state.status}
          </dd>
        </div>
        {state.status === "queued" ? (
          <div>
            <dt className="text-slate-600">Queue position</dt>
            <dd className="font-medium">{state.queuePosition ?? "—"}</dd>
          </div>
        ) : null}
        <div>
          <dt className="text-slate-600">Phase</dt>
          <dd className="font-medium" data-testid="live-phase">
            {state.phase ?? "—"}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600">Engine</dt>
          <dd className="font-medium">{state.engine ? `${state.engine.name}: ${state.engine.state}` : "—"}</dd>
        </div>
        {current ? (
          <>
            <div>
              <dt className="text-slate-600">Workload · pass</dt>
              <dd className="font-medium">
                {current.workload} · pass {passNumber(current.pass)} ({current.engine})
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">Elapsed</dt>
              <dd className="font-medium tabular-nums">
                {formatDuration(current.elapsedSeconds)}
                {current.fixedSeconds ? ` of ${formatDuration(current.fixedSeconds)}` : ""}
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">Requests</dt>
              <dd className="font-medium tabular-nums">{current.requests}</dd>
            </div>
            <div>
              <dt className="text-slate-600">Speed so far</dt>
              <dd className="font-medium tabular-nums">{formatTokensPerSecond(current.tokensPerSecond)}</dd>
            </div>
          </>
        ) : null}
        {state.memory ? <LiveMemory memory={state.memory} /> : null}
      </dl>
      {state.passes.length > 0 ? (
        <ol className="mt-4 space-y-1.5" aria-label="Passes" data-testid="live-passes">
          {state.passes.map((p) => (
            <PassBar key={`${p.engine}-${p.workload}-${p.pass}`} pass={p} />
          ))}
        </ol>
      ) : null}
      {state.log.length > 0 ? (
        <details className="mt-4">
          <summary className="cursor-pointer text-sm font-medium">Judge log ({state.log.length} lines)</summary>
          <pre className="mt-2 max-h-60 overflow-auto rounded bg-slate-900 p-3 text-xs text-slate-100">
            {state.log.join("\n")}
          </pre>
        </details>
      ) : null}
    </section>
  );
}

function PassBar({ pass }: { pass: LivePass }) {
  const share = pass.done ? 1 : pass.fixedSeconds ? Math.min(1, pass.elapsedSeconds / pass.fixedSeconds) : 0;
  const label = `${pass.workload} pass ${passNumber(pass.pass)}, ${pass.engine}`;
  return (
    <li className="grid grid-cols-[9rem_1fr_7rem] items-center gap-2 text-xs sm:grid-cols-[12rem_1fr_8rem]">
      <span className="truncate">{label}</span>
      <span
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(share * 100)}
        className="h-2.5 overflow-hidden rounded bg-slate-200"
      >
        <span
          className={`block h-full ${pass.engine === "stock" ? "bg-orange-700" : "bg-blue-700"}`}
          style={{ width: `${share * 100}%` }}
        />
      </span>
      <span className="text-right tabular-nums">
        {pass.done ? "done · " : ""}
        {formatTokensPerSecond(pass.tokensPerSecond)}
      </span>
    </li>
  );
}
