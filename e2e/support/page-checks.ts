import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";

/** Serious and critical findings of axe-core (every rule it runs by default), one line each. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // only the violations are collected: the passes' details, which axe gathers by default, double its time; axe.run in
  // the page itself (legacy mode) rather than a blank page opened per run to merge frames' results: the arena's pages
  // have no cross-origin frames, and a run costs about a second of Chromium's CPU less
  const { violations } = await new AxeBuilder({ page })
    .setLegacyMode()
    .options({ resultTypes: ["violations"] })
    .analyze();
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .map((n) => n.target.join(" "))
          .slice(0, 3)
          .join(" | ")}`,
    );
}

/**
 * How far the page reaches past the screen's right edge, in CSS pixels (0: no sideways scrolling), and the innermost
 * elements that reach past it (outside any region that scrolls by itself), for the failure message.
 */
export const overflowX = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const culprits: string[] = [];
    for (const element of document.body.querySelectorAll("*")) {
      if (element.closest("[tabindex='0'][aria-label]")) continue;
      if (element.getBoundingClientRect().right <= width + 0.5) continue;
      if ([...element.children].some((c) => c.getBoundingClientRect().right > width + 0.5)) continue;
      culprits.push(`<${element.tagName.toLowerCase()}> ${(element.textContent ?? "").trim().slice(0, 40)}`);
    }
    return { by: document.documentElement.scrollWidth - width, culprits: culprits.slice(0, 3) };
  });

/**
 * Links inside running text (a paragraph, a list item, a table cell) that are told apart from the text around them
 * by colour alone: no underline. Each as "text → href".
 */
export const linksWithoutUnderline = (page: Page) =>
  page.evaluate(() =>
    [...document.querySelectorAll("p a[href], li a[href], td a[href], dd a[href]")]
      .filter((a) => !a.closest("nav"))
      .filter((a) => !getComputedStyle(a).textDecorationLine.includes("underline"))
      .map((a) => `${(a.textContent ?? "").trim().slice(0, 30)} → ${a.getAttribute("href")}`)
      .slice(0, 3),
  );

/** Everything a page at this width must hold to: no sideways scrolling, no serious axe finding, underlined links. */
export async function pageProblems(page: Page, where: string): Promise<string[]> {
  const problems: string[] = [];
  const overflow = await overflowX(page);
  if (overflow.by > 0) problems.push(`${where} scrolls sideways by ${overflow.by} px: ${overflow.culprits}`);
  for (const line of await seriousViolations(page)) problems.push(`${where}: ${line}`);
  for (const link of await linksWithoutUnderline(page)) problems.push(`${where}: link without underline: ${link}`);
  return problems;
}

/** A phone's width and a desktop's, as the site is checked at. */
export const WIDTHS = [
  { name: "phone", width: 390, height: 844 },
  { name: "desktop", width: 1280, height: 900 },
] as const;

/** `pageProblems` at both widths, for a page in a state no address reaches (signed in, live); leaves the desktop size. */
export async function problemsAtBothWidths(page: Page, what: string): Promise<string[]> {
  const problems: string[] = [];
  for (const viewport of WIDTHS) {
    await page.setViewportSize(viewport);
    problems.push(...(await pageProblems(page, `${what} at ${viewport.width} px`)));
  }
  return problems;
}
