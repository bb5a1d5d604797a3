"use client";

import { useRouter } from "next/navigation";
import { useEffect } from "react";

/**
 * Reads the page again from the server in place (no reload: nothing the reader picked or scrolled is lost), so a
 * result appears on the boards soon after it is scored: every `activeMs` while evaluations are queued or running
 * (`live`), and every `idleMs` otherwise, to notice new ones; never while the tab is hidden.
 */
export function LiveRefresh({
  live,
  activeMs = 5_000,
  idleMs = 30_000,
}: {
  live: boolean;
  activeMs?: number;
  idleMs?: number;
}) {
  const router = useRouter();
  useEffect(() => {
    const timer = setInterval(
      () => {
        if (document.visibilityState === "visible") router.refresh();
      },
      live ? activeMs : idleMs,
    );
    return () => clearInterval(timer);
  }, [live, activeMs, idleMs, router]);
  return null;
}
