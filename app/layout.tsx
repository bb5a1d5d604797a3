import type { Metadata, Viewport } from "next";
import type { ReactNode } from "react";
import { env } from "@/lib/env";
import "./globals.css";

const description =
  "How much faster a speculative decoder makes a fixed LLM serve real multi-turn traffic on one GPU, without changing what the model says.";

/** Where social cards find the image: the arena's public address (unset where the environment is not, as in a bare build). */
function publicBase(): URL | undefined {
  try {
    return new URL(env().ARENA_PUBLIC_URL);
  } catch {
    return undefined;
  }
}

export function generateMetadata(): Metadata {
  const social = { url: "/social.png", width: 1200, height: 630, alt: `SpeculatorArena: ${description}` };
  return {
    metadataBase: publicBase(),
    title: { default: "SpeculatorArena", template: "%s · SpeculatorArena" },
    description,
    applicationName: "SpeculatorArena",
    icons: {
      icon: [
        { url: "/icon.svg", type: "image/svg+xml" },
        { url: "/favicon.png", type: "image/png", sizes: "32x32" },
      ],
      apple: [{ url: "/apple-touch-icon.png", sizes: "180x180" }],
    },
    openGraph: {
      type: "website",
      siteName: "SpeculatorArena",
      title: "SpeculatorArena",
      description,
      images: [social],
    },
    twitter: { card: "summary_large_image", title: "SpeculatorArena", description, images: [social] },
  };
}

export const viewport: Viewport = { width: "device-width", initialScale: 1, themeColor: "#1d4ed8" };

/** The header's links stand alone (no text around them), so they are told apart without an underline. */
const NAV = "no-underline hover:underline";

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
            <a href="/" className="inline-flex items-center gap-2 font-semibold text-slate-900 no-underline">
              <svg aria-hidden="true" viewBox="0 0 32 32" width="20" height="20">
                <rect width="32" height="32" rx="6" fill="#1d4ed8" />
                <path
                  d="M7 22 L13 10 L17 18 L20 13 L25 22"
                  fill="none"
                  stroke="#fff"
                  strokeWidth="3"
                  strokeLinejoin="round"
                  strokeLinecap="round"
                />
              </svg>
              SpeculatorArena
            </a>
            <a href="/tasks/qwen3-8b" className={NAV}>
              Qwen3-8B
            </a>
            <a href="/tasks/qwen35-27b" className={NAV}>
              Qwen3.5-27B
            </a>
            <a href="/gates" className={NAV}>
              Gates
            </a>
            <a href="/protocol" className={NAV}>
              Protocol
            </a>
            <a href="/guide" className={NAV}>
              Guide
            </a>
            <a href="/submit" className={NAV}>
              Submit
            </a>
            <a href="/admin" className={`${NAV} sm:ml-auto`}>
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
