import type { Metadata } from "next";
import { LatestList } from "@/components/board/latest-list";
import { Section } from "@/components/ui/section";
import { listRecentEvaluations } from "@/lib/board/list-recent";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Evaluations" };

export default async function EvaluationsPage() {
  const [full, tests] = await Promise.all([
    listRecentEvaluations({ limit: 100, profiles: "full" }),
    listRecentEvaluations({ limit: 50, profiles: "test" }),
  ]);
  return (
    <div className="space-y-8">
      <header>
        <h1 className="text-2xl font-semibold">Evaluations</h1>
        <p className="mt-1 max-w-prose text-slate-700">
          Every task&apos;s evaluations that changed last, whatever their state, newest change first: each is listed at
          the time it was queued, started or finished, whichever came last.
        </p>
      </header>
      <Section id="full" title="Under the protocol">
        <div className="mt-2">
          <LatestList entries={full} empty="No evaluation under the full protocol yet." />
        </div>
      </Section>
      <Section id="test-profiles" title="Test-profile runs">
        <p className="mt-1 max-w-prose text-sm text-slate-700">
          Shortened runs for demos and automated tests: labelled with their profile, never ranked.
        </p>
        <div className="mt-2">
          <LatestList entries={tests} empty="No run under a test profile yet." />
        </div>
      </Section>
    </div>
  );
}
