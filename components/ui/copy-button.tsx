"use client";

import { useState } from "react";

/** Copies a value to the clipboard and says so (to screen readers too). */
export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<"idle" | "done" | "failed">("idle");
  return (
    <span className="inline-flex items-center gap-2">
      <button
        type="button"
        className="rounded border border-slate-400 px-3 py-1.5 text-sm font-medium hover:bg-slate-50"
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(value);
            setCopied("done");
          } catch {
            setCopied("failed");
          }
        }}
      >
        {label}
      </button>
      <span role="status" className="text-sm text-slate-700">
        {copied === "done"
          ? "Copied."
          : copied === "failed"
            ? "Copy failed: select the token and copy it by hand."
            : ""}
      </span>
    </span>
  );
}
