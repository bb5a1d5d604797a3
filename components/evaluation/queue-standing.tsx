import { formatDuration } from "@/lib/board/format";
import type { LiveQueue } from "@/lib/board/live-progress";

const pad = (n: number) => String(n).padStart(2, "0");
const clock = (iso: string) => {
  const d = new Date(iso);
  return `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())} UTC`;
};

/** "in about 4 min", counting down from the estimate the arena pushed. */
function fromNow(iso: string, now: Date | null): string {
  if (!now) return `around ${clock(iso)}`;
  const seconds = (Date.parse(iso) - now.getTime()) / 1000;
  if (seconds < 30) return "any moment now";
  return `in about ${formatDuration(Math.round(seconds / 60) * 60)} (around ${clock(iso)})`;
}

/** A queued evaluation's place, what is ahead of it, and when it should start and finish. */
export function QueueStanding({
  queue,
  position,
  profile,
  now,
}: {
  queue: LiveQueue | null;
  position: number | null;
  profile: string;
  now: Date | null;
}) {
  return (
    <>
      <div>
        <dt className="text-slate-600">Queue position</dt>
        <dd className="font-medium tabular-nums" data-testid="queue-position">
          {queue?.position ?? position ?? "—"}
        </dd>
      </div>
      {queue ? (
        <div className="col-span-2 sm:col-span-3">
          <dt className="text-slate-600">Wait</dt>
          <dd data-testid="queue-estimate">
            <span className="font-medium">
              {queue.ahead === 0 ? "next to start" : `${queue.ahead} queued ahead`} · {queue.running} running on{" "}
              {queue.slots === 1 ? "the arena's one GPU slot" : `${queue.slots} GPU slots`}
            </span>
            {queue.estimate ? (
              <span className="block text-slate-700">
                Starts {fromNow(queue.estimate.startsAt, now)}; done {fromNow(queue.estimate.finishesAt, now)}.
                <span className="block text-xs text-slate-600">
                  From the measured durations of recent evaluations:{" "}
                  {queue.estimate.basis
                    .map((b) => `${b.profile} ${formatDuration(b.medianSeconds)} (median of ${b.runs})`)
                    .join(", ")}
                  .
                </span>
              </span>
            ) : (
              <span className="block text-slate-700">
                No estimate yet: no {(queue.unmeasured.length > 0 ? queue.unmeasured : [profile]).join(" or ")}{" "}
                evaluation has been scored on this arena to measure the wait by.
              </span>
            )}
          </dd>
        </div>
      ) : null}
    </>
  );
}
