import { setTimeout as sleep } from "node:timers/promises";
import { env } from "@/lib/env";
import { logger } from "@/lib/logger";
import { heldPage, renderPage, sinceLastReader } from "./app-page-cache";
import { keepPage } from "./kept-pages";
import { prerenderLoop } from "./prerender-final-pages";
import { staleFinalPages } from "./stale-final-pages";

/** Lets the server begin to listen before the first render is asked of it. */
const START_AFTER_MS = 3000;

/**
 * Starts the web process's prerender of final evaluations' pages (prerender-final-pages.ts), unless the page cache or
 * the prerender is off. Its timers never keep the process alive.
 */
export function startPrerender(): void {
  const config = env();
  if (config.PAGE_CACHE === "off" || config.PAGE_PRERENDER === "off") return;
  let lastReport = "";
  const unrefSleep = (ms: number) => sleep(ms, undefined, { ref: false });
  void unrefSleep(START_AFTER_MS).then(() =>
    prerenderLoop(
      {
        stale: (limit) => staleFinalPages(limit),
        held: heldPage,
        render: renderPage,
        keep: keepPage,
        sinceLastReader,
        sleep: unrefSleep,
      },
      () => false,
      (error) => {
        const message = String(error);
        if (message !== lastReport) logger.warn("page prerender: a pass failed; trying again", { error: message });
        lastReport = message;
      },
    ),
  );
}
