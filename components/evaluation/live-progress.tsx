"use client";

import { useRouter } from "next/navigation";
import { useEffect, useReducer, useRef, useState } from "react";
import { ScrollRegion } from "@/components/ui/scroll-region";
import { useNow } from "@/components/ui/use-now";
import { formatDuration, formatRatio, formatTokensPerSecond, passNumber } from "@/lib/board/format";
import { gpuTimeSeconds } from "@/lib/board/gpu-time";
import { applyEvent, initialLiveState, type LiveCheck, type LivePass, type LiveState } from "@/lib/board/live-progress";
import { liveRatios } from "@/lib/board/live-ratio";
import { checkName, phaseName, statusMeaning } from "@/lib/board/phase-names";
import { LiveMemory } from "./live-memory";
import { QueueStanding } from "./queue-standing";

const EVENT_TYPES = [
  "state",
  "status",
  "phase",
  "engine",
  "pass-started",
  "pass-progress",
  "pass-ended",
  "check-progress",
  "memory",
  "log",
  "result",
  "queue",
] as const;

/** Events the arena sends without an id (the browser then repeats the last id it saw, which is not theirs). */
const UNNUMBERED = new Set(["state", "queue"]);

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
  startedAt,
  profile,
}: {
  submissionId: string;
  status: string;
  phase: string | null;
  queuePosition: number | null;
  /** When a worker took it from the queue (the GPU time counts from there); the page passes it again on refresh. */
  startedAt: string | null;
  profile: string;
}) {
  const router = useRouter();
  const [state, dispatch] = useReducer(reducer, initialLiveState(status, phase, queuePosition));
  const [connection, setConnection] = useState<"connecting" | "live" | "reconnecting">("connecting");
  const lastStatus = useRef(status);
  const now = useNow();

  useEffect(() => {
    const source = new EventSource(`/api/submissions/${encodeURIComponent(submissionId)}/events`);
    source.onopen = () => setConnection("live");
    source.onerror = () => setConnection("reconnecting");
    const listeners = EVENT_TYPES.map((type) => {
      const listener = (event: MessageEvent) => {
        let data: unknown = null;
        try {
          data = JSON.parse(event.data as string);
        } catch {
          return;
        }
        const seq = Number.parseInt(event.lastEventId, 10);
        dispatch({ type, data, seq: UNNUMBERED.has(type) || !Number.isFinite(seq) ? 0 : seq });
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
  const queued = state.status === "queued";
  const gpuSeconds = now && !queued ? gpuTimeSeconds({ gpuSeconds: 0, startedAt, finishedAt: null, now }) : null;
  const ratios = liveRatios(state.passes);
  const meaning = statusMeaning(state.status);
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
          <dd>
            <span className="font-medium" data-testid="live-status">
              {state.status}
            </span>
            {meaning && meaning !== state.status ? (
              <span className="block text-xs text-slate-600">{meaning}</span>
            ) : null}
          </dd>
        </div>
        {queued ? (
          <QueueStanding queue={state.queue} position={state.queuePosition} profile={profile} now={now} />
        ) : (
          <>
            <div>
              <dt className="text-slate-600">Phase</dt>
              <dd className="font-medium" data-testid="live-phase">
                {phaseName(state.phase) ?? "—"}
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">GPU time</dt>
              <dd className="font-medium tabular-nums" data-testid="live-gpu-time">
                {gpuSeconds === null ? "—" : formatDuration(gpuSeconds)}
              </dd>
            </div>
            <div>
              <dt className="text-slate-600">Engine</dt>
              <dd className="font-medium">{state.engine ? `${state.engine.name}: ${state.engine.state}` : "—"}</dd>
            </div>
          </>
        )}
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
        {ratios.length > 0 ? (
          <div className="col-span-2">
            <dt className="text-slate-600">Speedup so far (before the gates)</dt>
            <dd className="font-medium tabular-nums" data-testid="live-ratio">
              {ratios
                .map(
                  (r) =>
                    `${r.workload} ${formatRatio(r.ratio)}× (${r.passes} ${r.passes === 1 ? "pass" : "passes"}${r.provisional ? " and one under way" : ""})`,
                )
                .join(" · ")}
            </dd>
          </div>
        ) : null}
        {state.memory ? <LiveMemory memory={state.memory} /> : null}
      </dl>
      {state.checks.length > 0 ? (
        <ol className="mt-4 space-y-1.5" aria-label="Lossless checks" data-testid="live-checks">
          {state.checks.map((c) => (
            <CheckBar key={`${c.engine}-${c.check}`} check={c} />
          ))}
        </ol>
      ) : null}
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
          <ScrollRegion label="The judge's log" scroll="both" className="mt-2 max-h-60 rounded bg-slate-900">
            <pre className="p-3 text-xs text-slate-100">{state.log.join("\n")}</pre>
          </ScrollRegion>
        </details>
      ) : null}
    </section>
  );
}

function Bar({ label, share, tone, figure }: { label: string; share: number; tone: string; figure: string }) {
  return (
    <li className="grid grid-cols-[minmax(0,9rem)_1fr_7rem] items-center gap-2 text-xs sm:grid-cols-[minmax(0,16rem)_1fr_8rem]">
      <span className="truncate" title={label}>
        {label}
      </span>
      <span
        role="progressbar"
        aria-label={label}
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={Math.round(share * 100)}
        className="h-2.5 overflow-hidden rounded bg-slate-200"
      >
        <span className={`block h-full ${tone}`} style={{ width: `${share * 100}%` }} />
      </span>
      <span className="text-right tabular-nums">{figure}</span>
    </li>
  );
}

function CheckBar({ check }: { check: LiveCheck }) {
  const share = check.total > 0 ? Math.min(1, check.done / check.total) : 1;
  return (
    <Bar
      label={checkName(check.check, check.engine)}
      share={share}
      tone={check.engine === "stock" ? "bg-orange-700" : "bg-blue-700"}
      figure={`${check.done} of ${check.total}${check.done >= check.total ? " · done" : ""}`}
    />
  );
}

function PassBar({ pass }: { pass: LivePass }) {
  const share = pass.done ? 1 : pass.fixedSeconds ? Math.min(1, pass.elapsedSeconds / pass.fixedSeconds) : 0;
  return (
    <Bar
      label={`${pass.workload} pass ${passNumber(pass.pass)}, ${pass.engine}`}
      share={share}
      tone={pass.engine === "stock" ? "bg-orange-700" : "bg-blue-700"}
      figure={`${pass.done ? "done · " : ""}${formatTokensPerSecond(pass.tokensPerSecond)}`}
    />
  );
}
