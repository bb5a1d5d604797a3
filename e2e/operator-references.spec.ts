import type { Page } from "@playwright/test";
import { isTerminal } from "../lib/evaluations/status-machine";
import { expect, test } from "./support/arena";
import { issueTokenInBrowser, keepScreenshot, markNoReload, signInAsAdmin, wasNotReloaded } from "./web-helpers";

/**
 * The references this test does not wait for are cancelled when it ends, passed or not, so the specs after it find
 * the GPU slots free: the reference account's own token cancels them, as any submitter can cancel theirs.
 */
let cleanup: { admin: Page; referenceToken: string } | undefined;

interface ReferenceRun {
  id: string;
  task_id: string;
  created_at: string;
  evaluation: { status: string; phase: string | null; reason: string | null } | null;
}

async function referenceRuns(admin: Page, referenceToken: string): Promise<ReferenceRun[]> {
  const headers = { authorization: `Bearer ${referenceToken}` };
  const response = await admin.request.get("/api/submissions?mine=1", { headers });
  expect(response.status()).toBe(200);
  return ((await response.json()) as { submissions: ReferenceRun[] }).submissions;
}

/**
 * Waits for the first `count` reference runs queued that are not in `earlier` (other specs run calibrations on the
 * reference account; measure-references.ts queues each task's A/A run first) to end, and fails naming the run when one
 * ends other than scored: its board row would never come, and a wait for the row alone would say only that it was not
 * there.
 */
async function expectFirstRunsScored(
  admin: Page,
  referenceToken: string,
  earlier: ReadonlySet<string>,
  count: number,
  timeoutMs: number,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const runs = (await referenceRuns(admin, referenceToken))
      .filter((r) => !earlier.has(r.id))
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .slice(0, count);
    expect(runs).toHaveLength(count);
    const states = runs.map(
      (r) => `${r.task_id}: ${r.evaluation?.status} ${r.evaluation?.phase ?? ""} ${r.evaluation?.reason ?? ""}`,
    );
    if (runs.every((r) => r.evaluation && isTerminal(r.evaluation.status))) {
      expect(
        runs.map((r) => r.evaluation?.status),
        states.join("; "),
      ).toEqual(runs.map(() => "scored"));
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`the A/A runs had not ended in ${timeoutMs / 1000} s: ${states.join("; ")}`);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  }
}

test.afterAll(async () => {
  if (!cleanup) return;
  const { admin, referenceToken } = cleanup;
  // the test's own request context is gone by now: the operator's page still has one
  const request = admin.request;
  const headers = { authorization: `Bearer ${referenceToken}` };
  for (const s of await referenceRuns(admin, referenceToken)) {
    if (s.evaluation && !isTerminal(s.evaluation.status)) {
      const cancelled = await request.post(`/api/submissions/${s.id}/cancel`, { headers });
      expect([200, 409]).toContain(cancelled.status());
    }
  }
  await admin.goto("/admin#queue");
  await expect(admin.getByTestId("queue-queued-count")).toHaveText("0");
  await admin.close();
});

/** The boards a reader opens first: the home page's, one a task. */
const TASKS = ["qwen3-8b", "qwen35-27b"];

test("an operator measures every reference at once, and the boards fill as each is scored, without a reload", async ({
  browser,
  arena,
}, testInfo) => {
  // two ci-profile evaluations side by side take 1.5 min on idle cores; a CI that runs the whole evaluations beside
  // this has seen them take over 4 min on a slow machine's two cores. A limit, never a wait.
  test.setTimeout(10 * 60_000);
  // A reader has the home page open: a fresh arena's boards have no reference yet.
  const reader = await browser.newPage();
  await reader.goto("/");
  const boardOf = (task: string) => reader.getByTestId(`board-${task}`);
  for (const task of TASKS) {
    await expect(boardOf(task).getByText("No reference has been run yet")).toBeVisible();
  }
  await markNoReload(reader);

  const admin = await browser.newPage();
  await signInAsAdmin(admin, arena);
  // the reference account exists from the arena's start; its token reads the runs' states and cancels what is left
  cleanup = { admin, referenceToken: await issueTokenInBrowser(admin, "reference") };
  const earlier = new Set((await referenceRuns(admin, cleanup.referenceToken)).map((r) => r.id));
  await admin.goto("/admin");
  const form = admin.locator("form", { has: admin.getByRole("button", { name: "Measure the references" }) });
  await form.getByLabel("Profile").selectOption("ci");
  await form.getByRole("button", { name: "Measure the references" }).click();
  // an action that queues nine evaluations asks first; backing out queues nothing
  const dialog = admin.getByRole("dialog", { name: /Measure all 9 references under ci/ });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
  await keepScreenshot(admin, testInfo, "admin-measure-references-confirm");
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
  await expect(admin.getByTestId("measure-references-result")).toHaveCount(0);

  await form.getByRole("button", { name: "Measure the references" }).click();
  await dialog.getByRole("button", { name: "Yes, queue 9 evaluations" }).click();
  const result = admin.getByTestId("measure-references-result");
  await expect(result).toContainText("9 reference evaluations queued under ci");
  await expect(result).toContainText("qwen3-8b stock, qwen35-27b stock, qwen3-8b ngram-4");
  await expect(admin.getByTestId("queue-queued-count")).not.toHaveText("0");
  await keepScreenshot(admin, testInfo, "admin-references-queued");

  // Each task's A/A run was queued first, side by side: the open home page shows each once scored, labelled.
  await expectFirstRunsScored(admin, cleanup.referenceToken, earlier, TASKS.length, 8 * 60_000);
  for (const task of TASKS) {
    const row = boardOf(task).locator("tr", { hasText: "stock engine (A/A)" });
    await expect(row).toBeVisible();
    await expect(row).toContainText("profile: ci");
    await expect(row).toContainText(/\d\.\d{3}/);
  }
  expect(await wasNotReloaded(reader)).toBe(true);
  await keepScreenshot(reader, testInfo, "home-with-references");

  // The task's full board lists it among its references too.
  await reader.goto("/tasks/qwen35-27b");
  const references = reader.locator("section", {
    has: reader.getByRole("heading", { name: "References: the same judge, the same sessions" }),
  });
  await expect(references.getByText("stock engine (A/A)")).toBeVisible();

  await reader.close();
});
