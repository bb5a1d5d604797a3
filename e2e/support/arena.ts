import { test as base, expect } from "@playwright/test";
import { type ArenaInfo, readArenaInfo } from "./arena-info";

/**
 * `test` with the throwaway arena global setup started: `arena` gives its URL, admin credentials and the database
 * and Redis it uses; `baseURL` points at it, so `page.goto("/")` opens the arena.
 */
export const test = base.extend<{ arena: ArenaInfo }>({
  // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies as a destructured object.
  arena: async ({}, use) => {
    await use(readArenaInfo());
  },
  baseURL: async ({ arena }, use) => {
    await use(arena.url);
  },
});

export type { ArenaInfo };
export { expect };
