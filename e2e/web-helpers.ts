import { mkdirSync } from "node:fs";
import path from "node:path";
import type { Browser, Page, TestInfo } from "@playwright/test";
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

/**
 * A page in a browser context of its own (its own cookies); close it with `page.context().close()`. Unlike
 * `browser.newPage()`'s, its context can open further pages, which axe-core's Playwright runner does to gather its
 * results.
 */
export async function openPage(browser: Browser): Promise<Page> {
  return (await browser.newContext()).newPage();
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

/** Voids an evaluation through the operators' form on /admin (the page must be open), confirming in its dialog. */
export async function voidOnAdminPage(page: Page, evaluationId: string, reason: string): Promise<void> {
  const voidForm = page.locator("form", { has: page.getByRole("button", { name: "Void and refund" }) });
  await voidForm.getByLabel("Evaluation id").fill(evaluationId);
  await voidForm.getByLabel(/Reason/).fill(reason);
  await voidForm.getByRole("button", { name: "Void and refund" }).click();
  await page
    .getByRole("dialog", { name: "Void this evaluation and refund its charge?" })
    .getByRole("button", { name: "Yes, void it" })
    .click();
  await expect(page.getByText(`evaluation ${evaluationId} is void`)).toBeVisible();
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

/** A marker a reload would wipe: a page that still has it was updated in place. */
export async function markNoReload(page: Page): Promise<void> {
  await page.evaluate(() => {
    (window as unknown as { arenaNoReload: boolean }).arenaNoReload = true;
  });
}

export async function wasNotReloaded(page: Page): Promise<boolean> {
  return (await page.evaluate(() => (window as unknown as { arenaNoReload?: boolean }).arenaNoReload)) === true;
}

/**
 * Records, from now on and without polling, every text the elements with these test ids show (a MutationObserver
 * in the page), so a test sees states that last less than its own checks would catch. Read back with `seenTexts`.
 */
export async function recordTexts(page: Page, testIds: string[]): Promise<void> {
  await page.evaluate((ids) => {
    const seen: Record<string, string[]> = Object.fromEntries(ids.map((id) => [id, []]));
    (window as unknown as { arenaSeen: Record<string, string[]> }).arenaSeen = seen;
    const read = () => {
      for (const id of ids) {
        for (const element of document.querySelectorAll(`[data-testid="${id}"]`)) {
          const text = (element.textContent ?? "").trim();
          const list = seen[id]!;
          if (text && list.at(-1) !== text) list.push(text);
        }
      }
    };
    read();
    new MutationObserver(read).observe(document.body, { subtree: true, childList: true, characterData: true });
  }, testIds);
}

/**
 * Starts recording, in the page, every value of `attribute` that an element matching `selector` held at any moment
 * (a row that comes and goes between two looks is still seen); `seenAttributes` reads them back.
 */
export async function recordAttributes(page: Page, selector: string, attribute: string): Promise<void> {
  await page.evaluate(
    ({ selector, attribute }) => {
      const seen = new Set<string>();
      (window as unknown as { arenaSeenAttributes: Set<string> }).arenaSeenAttributes = seen;
      const read = () => {
        for (const element of document.querySelectorAll(selector)) {
          const value = element.getAttribute(attribute);
          if (value) seen.add(value);
        }
      };
      read();
      new MutationObserver(read).observe(document.body, { subtree: true, childList: true, attributes: true });
    },
    { selector, attribute },
  );
}

/** The values `recordAttributes` saw. */
export async function seenAttributes(page: Page): Promise<string[]> {
  return page.evaluate(() => [...(window as unknown as { arenaSeenAttributes: Set<string> }).arenaSeenAttributes]);
}

/** What `recordTexts` saw, per test id, in order (each change once). */
export async function seenTexts(page: Page): Promise<Record<string, string[]>> {
  return page.evaluate(() => (window as unknown as { arenaSeen: Record<string, string[]> }).arenaSeen);
}
