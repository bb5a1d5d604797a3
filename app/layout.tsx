import type { Metadata } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "SpeculatorArena", template: "%s · SpeculatorArena" },
  description:
    "How much faster a speculative decoder makes a fixed LLM serve real multi-turn traffic on one GPU, without changing what the model says.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <header className="border-b border-slate-200">
          <nav aria-label="Main" className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
            <a href="/" className="font-semibold text-slate-900">
              SpeculatorArena
            </a>
            <a href="/gates">Gates</a>
            <a href="/protocol">Protocol</a>
            <a href="/submit">Submit</a>
            <a href="/admin" className="ml-auto">
              Admin
            </a>
          </nav>
        </header>
        <main className="mx-auto max-w-6xl px-4 py-6">{children}</main>
      </body>
    </html>
  );
}
