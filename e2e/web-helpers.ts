import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Page, TestInfo } from "@playwright/test";
import { expect } from "./support/arena";
import type { ArenaInfo } from "./support/arena-info";

/** Where each page's screenshot is kept as a test artifact. */
export const screenshotDir = path.resolve(import.meta.dirname, "artifacts/screenshots");

/** A full-page screenshot, kept under e2e/artifacts/screenshots and attached to the test's report. */
export async function keepScreenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  mkdirSync(screenshotDir, { recursive: true });
  const file = path.join(screenshotDir, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/** Signs the operator in through /admin/sign-in, as a person would. */
export async function signInAsAdmin(page: Page, arena: ArenaInfo): Promise<void> {
  await page.goto("/admin");
  await expect(page).toHaveURL(/\/admin\/sign-in/);
  await page.getByLabel("Email").fill(arena.admin.email);
  await page.getByLabel("Password").fill(arena.admin.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Operators" })).toBeVisible();
}

/** Issues a token on /admin and returns its plaintext, read from the one place it is shown. */
export async function issueTokenInBrowser(page: Page, accountName: string): Promise<string> {
  await page.goto("/admin");
  const form = page.locator("form", { has: page.getByRole("button", { name: "Issue token" }) });
  await form.getByLabel("Account name").fill(accountName);
  await form.getByRole("button", { name: "Issue token" }).click();
  const shown = page.getByTestId("new-token");
  await expect(shown).toBeVisible();
  const token = (await shown.textContent())?.trim() ?? "";
  expect(token).toMatch(/^spa_/);
  return token;
}

export const unique = (label: string) => `${label} ${Date.now().toString(36)}`;
