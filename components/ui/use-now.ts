"use client";

import { useEffect, useState } from "react";

/**
 * The time, updated every `everyMs`: null in the server's HTML and until the first tick after hydration, so a clock
 * never makes the server's and the browser's markup differ.
 */
export function useNow(everyMs = 1000): Date | null {
  const [now, setNow] = useState<Date | null>(null);
  useEffect(() => {
    setNow(new Date());
    const timer = setInterval(() => setNow(new Date()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}
