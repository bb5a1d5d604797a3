import { expect, test } from "./support/arena";
import { issueTokenInBrowser, keepScreenshot, signInAsAdmin, unique, voidOnAdminPage } from "./web-helpers";

test.describe("operators and tokens", () => {
  test("an admin issues a token shown once, the token works on the API, and once revoked it gets 401", async ({
    page,
    arena,
    request,
  }, testInfo) => {
    await page.goto("/admin/sign-in");
    await keepScreenshot(page, testInfo, "admin-sign-in");
    await signInAsAdmin(page, arena);

    const name = unique("e2e participant");
    const token = await issueTokenInBrowser(page, name);
    await expect(page.getByText("it is shown once and never again")).toBeVisible();
    await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
    await keepScreenshot(page, testInfo, "admin-token-issued");

    const headers = { authorization: `Bearer ${token}` };
    const budget = await request.get("/api/budget", { headers });
    expect(budget.status()).toBe(200);
    const body = (await budget.json()) as {
      account: string;
      budget: { taskId: string; split: string; remaining: number }[];
    };
    expect(body.account).toBe(name);
    expect(body.budget).toContainEqual(expect.objectContaining({ taskId: "qwen3-8b", split: "dev", remaining: 20 }));

    // Shown once: after a reload the page lists the token by its prefix only.
    await page.reload();
    await expect(page.getByTestId("new-token")).toHaveCount(0);
    const row = page.locator("tr", { hasText: name });
    await expect(row).toBeVisible();
    const prefix = await row.getAttribute("data-token-prefix");
    expect(prefix).toMatch(/^spa_[A-Za-z0-9_-]{8}$/);
    expect(token.startsWith(prefix!)).toBe(true);
    expect(prefix!.length).toBeLessThan(token.length);
    expect(await page.content()).not.toContain(token);
    await keepScreenshot(page, testInfo, "admin");

    // on a phone each token is a card: its Revoke button is on screen, not in a column past the edge
    await page.setViewportSize({ width: 390, height: 844 });
    const revoke = row.getByRole("button", { name: /^Revoke token/ });
    await revoke.scrollIntoViewIfNeeded();
    await expect(revoke).toBeVisible();
    const box = (await revoke.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await keepScreenshot(page, testInfo, "admin-tokens-phone");
    await page.setViewportSize({ width: 1280, height: 720 });

    // revoking cannot be undone: it asks first, and backing out changes nothing
    await row.getByRole("button", { name: /^Revoke token/ }).click();
    const confirm = page.getByRole("dialog", { name: /^Revoke spa_/ });
    await expect(confirm).toBeVisible();
    await expect(confirm).toContainText("cannot be restored");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await expect(confirm).toBeHidden();
    await expect(row.getByRole("button", { name: /^Revoke token/ })).toBeFocused();
    expect((await request.get("/api/budget", { headers })).status()).toBe(200);
    await row.getByRole("button", { name: /^Revoke token/ }).click();
    await keepScreenshot(page, testInfo, "admin-revoke-confirm");
    await confirm.getByRole("button", { name: "Yes, revoke it" }).click();
    await expect(page.locator("tr", { hasText: name })).toContainText("revoked");
    const after = await request.get("/api/budget", { headers });
    expect(after.status()).toBe(401);
    expect(((await after.json()) as { error: { message: string } }).error.message).toMatch(/revoked/);
  });

  test("registration opens and closes: /register hands out a working token only while open", async ({
    page,
    arena,
    request,
  }, testInfo) => {
    await signInAsAdmin(page, arena);
    const state = page.getByTestId("registration-state");
    if ((await state.textContent())?.includes("open")) {
      await page.getByRole("button", { name: "Close registration" }).click();
      await expect(state).toContainText("closed");
    }
    const closed = await page.goto("/register");
    expect(closed?.status()).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Registration is closed" })).toBeVisible();
    await keepScreenshot(page, testInfo, "register-closed");

    await page.goto("/admin");
    await page.getByRole("button", { name: "Open registration" }).click();
    await expect(page.getByTestId("registration-state")).toContainText("open");

    const open = await page.goto("/register");
    expect(open?.status()).toBe(200);
    const name = unique("e2e self-registered");
    await page.getByLabel("Account name").fill(name);
    await page.getByRole("button", { name: "Get my token" }).click();
    const shown = page.getByTestId("new-token");
    await expect(shown).toBeVisible();
    await expect(page.getByText("it is shown once and never again")).toBeVisible();
    await expect(page.getByRole("button", { name: "Copy token" })).toBeVisible();
    const token = (await shown.textContent())!.trim();
    await keepScreenshot(page, testInfo, "register-token");

    const budget = await request.get("/api/budget", { headers: { authorization: `Bearer ${token}` } });
    expect(budget.status()).toBe(200);
    expect(((await budget.json()) as { account: string }).account).toBe(name);

    await page.goto("/admin");
    await page.getByRole("button", { name: "Close registration" }).click();
    await expect(page.getByTestId("registration-state")).toContainText("closed");
    expect((await page.goto("/register"))?.status()).toBe(404);
    const refused = await request.post("/api/register", { data: { name: unique("too late") } });
    expect(refused.status()).toBe(403);
  });

  test("an admin runs an A/A evaluation, then voids and refunds it", async ({ page, arena }, testInfo) => {
    // six page loads, a queued evaluation and a void: beside the other lanes of a two-core CI that took 72 s, and the
    // default minute ran out while the void's confirmation was on its way
    test.setTimeout(3 * 60_000);
    await signInAsAdmin(page, arena);
    const run = page.locator("form", { has: page.getByRole("button", { name: "Run" }) });
    await run.getByLabel("Task").selectOption("qwen3-8b");
    await run.getByLabel("Reference").selectOption("stock");
    await run.getByLabel("Split").selectOption("dev");
    await run.getByLabel("Profile").selectOption("ci");
    await run.getByRole("button", { name: "Run" }).click();
    await expect(page.getByText("stock queued")).toBeVisible();
    const link = page.getByRole("link", { name: "watch it" });
    const href = (await link.getAttribute("href")) ?? "";
    const evaluationId = href.split("/").pop()!;
    expect(evaluationId).toMatch(/^[a-z0-9]+$/);

    await page.goto(href);
    await expect(page.getByRole("heading", { level: 1, name: "stock engine (A/A)" })).toBeVisible();
    await expect(page.getByText("profile: ci").first()).toBeVisible();

    await page.goto("/admin");
    await voidOnAdminPage(page, evaluationId, "e2e: voided by the operators' test");
    await expect(page.getByText(`evaluation ${evaluationId} is void and its charge refunded`)).toBeVisible();
    await keepScreenshot(page, testInfo, "admin-voided");

    await page.goto(href);
    await expect(page.getByText("This evaluation is void.")).toBeVisible();
    await expect(page.getByText("e2e: voided by the operators' test")).toBeVisible();
    await expect(page.getByText(/Its budget charge was refunded on/)).toBeVisible();
    await keepScreenshot(page, testInfo, "evaluation-void");
  });
  test("an admin starts a calibration, and once its evaluations end its report is served", async ({
    page,
    arena,
  }, testInfo) => {
    // five evaluations voided one by one through the admin page: beside the other lanes of a two-core CI that took
    // the default minute, and the report's download was cut off
    test.setTimeout(3 * 60_000);
    await signInAsAdmin(page, arena);
    const form = page.locator("form", { has: page.getByRole("button", { name: "Start the calibration" }) });
    const start = async () => {
      await form.getByRole("button", { name: "Start the calibration" }).click();
      await page
        .getByRole("dialog")
        .getByRole("button", { name: /^Yes, queue/ })
        .click();
    };
    await form.getByLabel("Task").selectOption("qwen3-8b");
    await form.getByLabel("Profile").selectOption("ci");
    await form.getByLabel("Split").selectOption("dev");
    await form.getByLabel("A/A runs").fill("2");
    await start();
    await expect(page.getByTestId("start-calibration-result")).toHaveText(
      /calibration \w+ started: 5 evaluations queued/,
    );
    const calibrationId = /calibration (\w+) started/.exec(
      (await page.getByTestId("start-calibration-result").textContent()) ?? "",
    )![1]!;
    await page.goto("/admin");
    const row = page.locator(`[data-calibration="${calibrationId}"]`);
    await expect(row).toContainText("ci · dev");
    const runs = await row
      .locator("[data-calibration-run]")
      .evaluateAll((links) => links.map((a) => a.getAttribute("data-calibration-run")!));
    expect(runs).toHaveLength(5);

    // the e2e arena's GPU slots are for the other tests: the operator voids each run, and the last void completes it
    for (const evaluationId of runs) {
      await voidOnAdminPage(page, evaluationId, "e2e: a calibration stopped by the operators' test");
    }
    await page.goto("/admin");
    await expect(row).toContainText("reported");
    await keepScreenshot(page, testInfo, "admin-calibration");
    const download = row.getByRole("link", { name: /^JSON/ });
    const response = await page.request.get((await download.getAttribute("href"))!);
    expect(response.status()).toBe(200);
    const report = await response.json();
    expect(report).toMatchObject({ kind: "speculatorarena.calibration", task: "qwen3-8b", profile: "ci" });
    expect(report.aa.requested).toBe(2);
    expect([...report.aa.runs, ...report.references].map((r: { outcome: string }) => r.outcome)).toEqual(
      Array(5).fill("void"),
    );
  });
});
