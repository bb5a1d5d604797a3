import type { Metadata } from "next";
import { profileTimings, timingWords } from "@/lib/board/profile-timing";
import { recentDurations } from "@/lib/evaluations/recent-durations";
import { currentProtocol } from "@/lib/protocol";
import { SubmitForm } from "./submit-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Submit" };

export default async function SubmitPage() {
  const p = currentProtocol();
  const timings = profileTimings(p.profiles, await recentDurations());
  return (
    <div className="space-y-6">
      <header>
        <h1 className="text-2xl font-semibold">Submit a speculator</h1>
        <p className="mt-1 max-w-prose text-slate-700">
          Sign in with the arena token the operators gave you (or one from <a href="/register">registration</a>, while
          it is open). Your token stays in this browser tab and is sent only to this arena.
        </p>
      </header>
      <SubmitForm
        tasks={Object.values(p.tasks).map((t) => ({ id: t.id, name: t.name }))}
        kinds={["ngram", "suffix", "draft", "eagle3", "mtp", "other"]}
        profiles={timings.map((t) => ({ name: t.name, description: t.description, duration: timingWords(t) }))}
        inlineMaxChars={p.submission.engineInlineMaxChars}
        methodMaxChars={p.submission.methodMaxChars}
      />
    </div>
  );
}
