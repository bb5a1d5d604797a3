import { defineConfig } from "@playwright/test";

/** Debian's Chromium (apt-get install chromium); Playwright's own browser downloads are not used. */
const chromium = {
  executablePath: "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
  ],
};

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "e2e/artifacts/results",
  // One throwaway arena serves the whole run (global setup); its state is shared, so run tests one at a time.
  workers: 1,
  fullyParallel: false,
  forbidOnly: true,
  retries: 0,
  timeout: 60_000,
  expect: { timeout: 10_000 },
  globalSetup: "./e2e/support/global-setup.ts",
  reporter: [["list"], ["html", { outputFolder: "e2e/artifacts/report", open: "never" }]],
  use: {
    browserName: "chromium",
    launchOptions: chromium,
    screenshot: "on",
    // a failed test's trace keeps each action's DOM snapshot and the network, not the screencast: the screencast has
    // Chromium encode a frame at every paint of every test, kept or not
    trace: { mode: "retain-on-failure", screenshots: false, snapshots: true, sources: true },
    video: "off",
    actionTimeout: 15_000,
    navigationTimeout: 30_000,
  },
});
