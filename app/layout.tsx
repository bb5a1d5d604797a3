import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "SpeculatorArena", template: "%s · SpeculatorArena" },
  description:
    "How much faster a speculative decoder makes a fixed LLM serve real multi-turn traffic on one GPU, without changing what the model says.",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen">
        <a
          href="#content"
          className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
        >
          Skip to content
        </a>
        <header className="border-b border-slate-200">
          <nav
            aria-label="Main"
            className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-5 gap-y-2 px-4 py-3 text-sm sm:text-base"
          >
            <a href="/" className="font-semibold text-slate-900">
              SpeculatorArena
            </a>
            <a href="/tasks/qwen3-8b">Qwen3-8B</a>
            <a href="/tasks/qwen35-27b">Qwen3.5-27B</a>
            <a href="/gates">Gates</a>
            <a href="/protocol">Protocol</a>
            <a href="/guide">Guide</a>
            <a href="/submit">Submit</a>
            <a href="/admin" className="sm:ml-auto">
              Admin
            </a>
          </nav>
        </header>
        <main id="content" className="mx-auto max-w-6xl px-4 py-6">
          {children}
        </main>
        <footer className="mx-auto max-w-6xl border-t border-slate-200 px-4 py-6 text-sm text-slate-600">
          SpeculatorArena · the rules are the <a href="/protocol">protocol in force</a>; every figure on this site is
          served from the arena&apos;s database.
        </footer>
      </body>
    </html>
  );
}
