import type { Metadata } from "next";
import { LatestList } from "@/components/board/latest-list";
import { listLatestEvaluations } from "@/lib/board/list-latest";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluations" };

export default async function EvaluationsPage() {
  const latest = await listLatestEvaluations(100);
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Evaluations</h1>
      <p className="max-w-prose text-slate-700">
        The latest hundred evaluations on every task, newest first, whatever their state; runs under a test profile
        carry its label.
      </p>
      <LatestList entries={latest} />
    </div>
  );
}
