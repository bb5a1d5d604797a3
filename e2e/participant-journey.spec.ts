import path from "node:path";
import { expect, test } from "./support/arena";
import { problemsAtBothWidths } from "./support/page-checks";
import {
  issueTokenInBrowser,
  keepScreenshot,
  markNoReload,
  openPage,
  recordTexts,
  seenTexts,
  signInAsAdmin,
  unique,
  wasNotReloaded,
} from "./web-helpers";

const eagleEngine = path.resolve(import.meta.dirname, "../lib/sim-engine/engines/eagle");

test("a participant signs in with a token, submits, watches the evaluation live until scored, and finds it on the board", async ({
  browser,
  arena,
}, testInfo) => {
  test.setTimeout(12 * 60_000);

  const admin = await browser.newPage();
  await signInAsAdmin(admin, arena);
  const participant = unique("e2e eagle participant");
  const token = await issueTokenInBrowser(admin, participant);
  await admin.close();

  const page = await openPage(browser);
  await page.goto("/submit");
  await page.getByLabel("Arena token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-name")).toHaveText(participant);
  // the sign-in form gave way to the submission form: focus is on its heading, not lost to <body>
  await expect(page.getByRole("heading", { level: 2, name: `Signed in as ${participant}` })).toBeFocused();
  await expect(page.getByTestId("budget-line")).toContainText("20 of 20 dev evaluations left on qwen3-8b");
  // the signed-in form, which no address shows: on a phone and a desktop, nothing sideways, nothing serious for axe
  expect(await problemsAtBothWidths(page, "/submit signed in")).toEqual([]);

  // The profile follows the split: a dev run (never ranked) is a short smoke run, a test run the ranked full one;
  // each says how long it takes.
  const profile = page.getByLabel("Profile");
  const note = page.getByTestId("profile-note");
  await expect(profile).toHaveValue("smoke");
  await expect(note).toContainText("never ranked");
  await expect(note).toContainText(/about .* here|at least .* \(its timed passes/);
  await page.getByLabel(/test \(hidden, scored\)/).check();
  await expect(profile).toHaveValue("full");
  await expect(profile.locator("option:checked")).toHaveText("full: the protocol as published (ranked)");
  await expect(note).toContainText("Ranked on the board.");
  await expect(note).toContainText(/at least 57 min|about/);

  await page.getByLabel("Task").selectOption("qwen3-8b");
  await page.getByLabel(/dev \(public sessions\)/).check();
  await expect(profile).toHaveValue("smoke");
  await expect(profile.locator('option[value="full"]')).toHaveText(
    "full: the protocol as published (not ranked on dev)",
  );
  await page.getByLabel(/a folder \(packed here/).check();
  await page.getByLabel(/Engine folder/).setInputFiles(eagleEngine);
  const method = unique("e2e EAGLE-like sim");
  await page.getByLabel("Method").fill(method);
  await page.getByLabel("Kind").selectOption("eagle3");
  await page.getByLabel("Profile").selectOption("ci");
  await keepScreenshot(page, testInfo, "submit");
  await page.getByRole("button", { name: "Submit for evaluation" }).click();

  await page.waitForURL(/\/evaluations\/[a-z0-9]+$/, { timeout: 60_000 });
  const evaluationId = page.url().split("/").pop()!;
  // A marker that a reload would wipe: the page must update in place.
  await markNoReload(page);
  await recordTexts(page, ["live-phase", "live-gpu-time", "live-checks", "live-ratio", "live-memory", "live-passes"]);
  await expect(page.getByRole("heading", { level: 1, name: method })).toBeVisible();
  await expect(page.getByText("run under a test profile: not ranked on the public board")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Live progress" })).toBeVisible();
  await expect(page.getByText("● live")).toBeVisible({ timeout: 30_000 });

  // Watch it move: states and passes seen on the live panel, until the verdict replaces it.
  const seen = new Set<string>();
  let passBars = 0;
  let shotLive = false;
  const deadline = Date.now() + 10 * 60_000;
  while (Date.now() < deadline) {
    if (await page.getByTestId("specscore").isVisible()) break;
    const status = await page
      .getByTestId("live-status")
      .textContent({ timeout: 1_000 })
      .catch(() => null);
    if (status) seen.add(status.trim());
    passBars = Math.max(passBars, await page.getByTestId("live-passes").locator("li").count());
    if (!shotLive && passBars > 0) {
      await keepScreenshot(page, testInfo, "evaluation-live");
      // the live panel as it runs holds to what every page does, at both widths
      expect(await problemsAtBothWidths(page, "a running evaluation's page")).toEqual([]);
      shotLive = true;
    }
    await page.waitForTimeout(500);
  }
  await expect(page.getByTestId("specscore")).toBeVisible();
  expect([...seen].some((s) => ["fetching", "running", "checking"].includes(s))).toBe(true);
  expect(await wasNotReloaded(page)).toBe(true);

  // What the live panel said on the way: phases in words, GPU time counting, each check's progress, the ratio so far.
  const live = await seenTexts(page);
  expect(live["live-phase"]).toEqual(
    expect.arrayContaining(["Timed passes: the candidate", "Timed passes: the stock engine"]),
  );
  expect(live["live-phase"]!.join(" ")).not.toMatch(/candidate-timed|stock-timed|checks-(candidate|stock)/);
  const gpu = live["live-gpu-time"]!.filter((t) => t !== "—");
  expect(gpu.length, `GPU time shown: ${gpu.join(", ")}`).toBeGreaterThan(2);
  expect(gpu.some((t) => t !== "0 s")).toBe(true);
  expect(live["live-checks"]!.join(" ")).toMatch(/Greedy probes, on the candidate\s*\d+ of \d+/);
  expect(live["live-checks"]!.join(" ")).toMatch(/Scoring the candidate's sampled replies, on the stock engine/);
  expect(live["live-ratio"]!.join(" ")).toMatch(/solo \d+\.\d{2}×/);
  // every pass had its bar, the candidate's and the stock engine's (recorded as they changed: a loaded runner's
  // look above can miss the whole run)
  const passes = live["live-passes"]!.join(" ");
  for (const workload of ["solo", "team", "busy"])
    for (const engine of ["candidate", "stock"]) expect(passes).toContain(`${workload} pass 1, ${engine}`);
  // device memory is held to its limit, not to the device's size
  expect(live["live-memory"]!.join(" ")).toMatch(/\d+\.\d GiB of its \d+\.\d GiB limit/);

  await expect(page.getByTestId("verdict")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Lossless gate" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Speculation" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Everything the judge recorded" })).toBeVisible();
  // Its GPU time is what it held the slot for, not 0.
  await expect(page.locator("dt", { hasText: "GPU time" }).locator("xpath=following-sibling::dd[1]")).not.toHaveText(
    "0 s",
  );
  // Each pass's speed, and TTFT and TPOT, are in a table under their chart too.
  const passTable = page.getByTestId("chart-table").first();
  await passTable.getByText("The figures as a table").click();
  await expect(passTable.locator("tbody tr")).toHaveCount(9);
  await expect(passTable.locator("tbody")).toContainText("tok/s");
  await keepScreenshot(page, testInfo, "evaluation-scored");

  await page.goto("/tasks/qwen3-8b");
  const profiled = page.getByTestId("profiled-runs");
  const row = profiled.locator(`tr[data-evaluation="${evaluationId}"]`);
  await expect(row).toBeVisible();
  await expect(row).toContainText("profile: ci");
  await expect(row).toContainText(method);
  await expect(row).toContainText(participant);
  // Never ranked: the ranked boards do not list it.
  const ranked = page.locator("section", { has: page.getByRole("heading", { name: "Participants" }) });
  await expect(ranked.getByText(method)).toHaveCount(0);
  await keepScreenshot(page, testInfo, "task-board-qwen3-8b");
  await page.context().close();
});
