"use client";

import { useEffect, useState } from "react";
import { type Column, DataTable, type TableSpec } from "@/components/ui/data-table";
import type { QueueListing, QueueRow } from "@/lib/admin/list-queue";
import { formatShortTime } from "@/lib/board/format";
import { phaseName } from "@/lib/board/phase-names";

const POD_COLUMN: Column<QueueRow> = {
  header: "Pod · worker",
  className: "font-mono text-xs",
  cell: (r) => `${r.podId ?? "—"} · ${r.leaseOwner ?? "—"} (attempt ${r.attempt})`,
};

/** The queue's table; the pod column only where evaluations have one (the running). */
const QUEUE_TABLE: TableSpec<QueueRow> = {
  minWidth: "min-w-[52rem]",
  rowKey: (r) => r.evaluationId,
  rowAttributes: (r) => ({ "data-evaluation": r.evaluationId }),
  columns: [
    {
      header: "Evaluation",
      className: "font-mono text-xs",
      cell: (r) => <a href={`/evaluations/${r.evaluationId}`}>{r.evaluationId}</a>,
    },
    { header: "Account", cell: (r) => r.account },
    { header: "Task · split · profile", cell: (r) => `${r.taskId} · ${r.split} · ${r.profile}` },
    { header: "State · phase", cell: (r) => `${r.status}${r.phase ? ` · ${phaseName(r.phase)}` : ""}` },
    POD_COLUMN,
    { header: "Queued", className: "tabular-nums", cell: (r) => formatShortTime(r.queuedAt) },
  ],
};
const QUEUE_TABLE_NO_POD: TableSpec<QueueRow> = {
  ...QUEUE_TABLE,
  columns: QUEUE_TABLE.columns.filter((c) => c !== POD_COLUMN),
};

/**
 * The queue and the running pods, live: the arena pushes the listing each time an evaluation is queued, starts,
 * changes phase or finishes (GET /api/admin/queue/events), and the tables follow without a reload.
 */
export function LiveQueue({ initial }: { initial: QueueListing }) {
  const [listing, setListing] = useState(initial);
  const [live, setLive] = useState(false);
  useEffect(() => {
    const source = new EventSource("/api/admin/queue/events");
    source.onopen = () => setLive(true);
    source.onerror = () => setLive(false);
    const onQueue = (event: MessageEvent) => {
      try {
        setListing(JSON.parse(event.data as string) as QueueListing);
      } catch {
        // a message that is not the listing changes nothing
      }
    };
    source.addEventListener("queue", onQueue);
    return () => {
      source.removeEventListener("queue", onQueue);
      source.close();
    };
  }, []);
  return (
    <div className="space-y-4" data-testid="live-queue">
      <p className="text-xs text-slate-700" aria-live="polite">
        {live ? "● live: updated as evaluations move" : "connecting…"}
      </p>
      <QueueTable caption="Running" rows={listing.running} empty="No evaluation is running." showPod />
      <QueueTable caption="Queued" rows={listing.queued} empty="The queue is empty." />
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
    <div data-testid={`queue-${caption.toLowerCase()}`}>
      <h3 className="font-semibold">
        {caption} (<span data-testid={`queue-${caption.toLowerCase()}-count`}>{rows.length}</span>)
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
