import type { Metadata } from "next";
import { currentProtocol } from "@/lib/protocol";
import { SubmitForm } from "./submit-form";

export const metadata: Metadata = { title: "Submit" };

export default function SubmitPage() {
  const p = currentProtocol();
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
        profiles={p.profiles.map((x) => ({ name: x.name, description: x.description }))}
        inlineMaxChars={p.submission.engineInlineMaxChars}
        methodMaxChars={p.submission.methodMaxChars}
      />
    </div>
  );
}
