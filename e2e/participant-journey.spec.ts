import path from "node:path";
import { expect, test } from "./support/arena";
import { issueTokenInBrowser, keepScreenshot, signInAsAdmin, unique } from "./web-helpers";

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

  const page = await browser.newPage();
  await page.goto("/submit");
  await page.getByLabel("Arena token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByTestId("account-name")).toHaveText(participant);
  await expect(page.getByTestId("budget-line")).toContainText("20 of 20 dev evaluations left on qwen3-8b");

  await page.getByLabel("Task").selectOption("qwen3-8b");
  await page.getByLabel(/dev \(public sessions\)/).check();
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
  await page.evaluate(() => {
    (window as unknown as { arenaNoReload: boolean }).arenaNoReload = true;
  });
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
      shotLive = true;
    }
    await page.waitForTimeout(500);
  }
  await expect(page.getByTestId("specscore")).toBeVisible();
  expect([...seen].some((s) => ["fetching", "running", "checking"].includes(s))).toBe(true);
  expect(passBars).toBeGreaterThan(0);
  expect(await page.evaluate(() => (window as unknown as { arenaNoReload?: boolean }).arenaNoReload)).toBe(true);

  await expect(page.getByTestId("verdict")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Lossless gate" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Speculation" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Everything the judge recorded" })).toBeVisible();
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
  await page.close();
});
