import { expect, test } from "./support/arena";
import { engineThatDoesNotStart, submitThroughApi } from "./support/engines";
import { problemsAtBothWidths } from "./support/page-checks";
import {
  issueTokenInBrowser,
  keepScreenshot,
  markNoReload,
  openPage,
  recordAttributes,
  recordTexts,
  seenAttributes,
  seenTexts,
  signInAsAdmin,
  unique,
  wasNotReloaded,
} from "./web-helpers";

/** Evaluations queued ahead of the watched one: more than the arena's GPU slots, so it waits behind a queue. */
const AHEAD = 5;

test("a queued evaluation's position falls live as the evaluations ahead finish, and the operators' queue follows", async ({
  browser,
  arena,
  request,
}, testInfo) => {
  test.setTimeout(3 * 60_000);
  const admin = await browser.newPage();
  await signInAsAdmin(admin, arena);
  const token = await issueTokenInBrowser(admin, unique("e2e queue participant"));
  await admin.goto("/admin#queue");
  const live = admin.getByTestId("live-queue");
  await expect(live.getByText("● live")).toBeVisible();
  await markNoReload(admin);
  await recordTexts(admin, ["queue-queued-count"]);
  // the queued rows as they come and go: evaluations whose engine gives up at once leave the queue within seconds
  await recordAttributes(admin, '[data-testid="queue-queued"] tr[data-evaluation]', "data-evaluation");

  // Engines that give up after a few seconds, each evaluation ahead scored 0. The first two, which take the arena's two
  // GPU slots, hold them for 25 s: the queue then cannot move before the watched page is loaded and recording. Given
  // up at once, the queue could drain before that page had loaded; after 6 s, on crowded cores the page was first
  // seen at position 2, which went straight to running (fresh clones' CI here, twice).
  const inline = engineThatDoesNotStart(6);
  const holding = engineThatDoesNotStart(25);
  const ahead = [];
  for (let i = 0; i < AHEAD; i++)
    ahead.push(
      await submitThroughApi(request, token, {
        inline: i < 2 ? holding : inline,
        method: unique(`ahead ${i}`),
        profile: "ci",
      }),
    );
  const watched = await submitThroughApi(request, token, { inline, method: unique("watched"), profile: "ci" });

  const page = await openPage(browser);
  await page.goto(`/evaluations/${watched.evaluationId}`);
  await expect(page.getByText("● live")).toBeVisible();
  await markNoReload(page);
  await recordTexts(page, ["queue-position", "queue-estimate", "live-status"]);
  const position = Number(await page.getByTestId("queue-position").textContent());
  expect(position).toBeGreaterThan(1);
  await expect(page.getByTestId("queue-estimate")).toContainText(/queued ahead|next to start/);
  await keepScreenshot(page, testInfo, "evaluation-queued");

  // The operators' table listed it among the queued, without a reload.
  await expect.poll(() => seenAttributes(admin)).toContain(watched.evaluationId);
  await keepScreenshot(admin, testInfo, "admin-queue-live");

  // the queued page, which no fixed address shows, holds to what every page does, on a phone and a desktop
  expect(await problemsAtBothWidths(page, "a queued evaluation's page")).toEqual([]);

  // It waits its turn, then runs and ends: the page follows it all without a reload.
  await expect(page.getByTestId("specscore")).toBeVisible({ timeout: 120_000 });
  const seen = await seenTexts(page);
  const positions = seen["queue-position"]!.map(Number);
  // at least one step down was pushed to the page and every step was down (with two GPU slots, the last step may
  // take it from 2 straight to running)
  expect(positions.length, `positions seen: ${positions.join(", ")}`).toBeGreaterThan(1);
  expect([...positions].sort((a, b) => b - a)).toEqual(positions);
  expect(positions.at(-1)).toBeLessThan(position);
  expect(seen["live-status"]).toContain("queued");
  expect(seen["live-status"]!.some((s) => s !== "queued")).toBe(true);
  expect(seen["queue-estimate"]!.join(" ")).toMatch(/Starts in about|Starts any moment|No estimate yet/);
  expect(await wasNotReloaded(page)).toBe(true);
  await expect(page.getByTestId("verdict")).toContainText("Scored 0: the candidate engine did not start");

  // The operators' queue emptied as they ran, with no reload either.
  await expect(live.getByTestId("queue-queued-count")).toHaveText("0", { timeout: 30_000 });
  const counts = (await seenTexts(admin))["queue-queued-count"]!.map(Number);
  // it grew as they were submitted, then shrank as they started
  expect(Math.max(...counts), `queued counts seen: ${counts.join(", ")}`).toBeGreaterThanOrEqual(2);
  expect(counts.at(-1)).toBe(0);
  expect(await wasNotReloaded(admin)).toBe(true);
  for (const e of ahead) await expect(live.locator(`tr[data-evaluation="${e.evaluationId}"]`)).toHaveCount(0);

  // The home page lists them among the test-profile runs, never among the protocol's, newest change first, each at
  // the time it finished.
  await page.goto("/");
  const section = (title: string) =>
    page.locator("section", { has: page.getByRole("heading", { level: 2, name: title, exact: true }) });
  const tests = section("Test-profile runs").locator("li[data-evaluation]");
  const mine = [...ahead, watched].map((e) => e.evaluationId);
  await expect(tests.first()).toBeVisible();
  const listed = await tests.evaluateAll((items) =>
    items.map((li) => ({
      id: li.getAttribute("data-evaluation"),
      change: li.querySelector("time")?.parentElement?.textContent?.trim().split(" ")[0],
      at: li.querySelector("time")?.getAttribute("datetime") ?? "",
    })),
  );
  // its short list holds fewer than these six, and only theirs (they changed last), the watched one (one of the last
  // two to end) among them
  expect(listed.length).toBeLessThan(mine.length);
  for (const e of listed) {
    expect(mine, `${e.id} is listed before this test's runs`).toContain(e.id);
    expect(e.change).toBe("finished");
  }
  expect(listed.map((e) => e.id)).toContain(watched.evaluationId);
  const times = listed.map((e) => Date.parse(e.at));
  expect([...times].sort((a, b) => b - a)).toEqual(times);
  for (const id of mine)
    await expect(section("Latest evaluations").locator(`li[data-evaluation="${id}"]`)).toHaveCount(0);
  await page.context().close();
  await admin.close();
});
