import type { Page } from "@playwright/test";
import { seedDemoBoard } from "../lib/board/demo/demo-board";
import { createPrismaClient } from "../lib/db/client";
import { expect, test } from "./support/arena";
import { readArenaInfo } from "./support/arena-info";
import { pageProblems, WIDTHS } from "./support/page-checks";
import { keepScreenshot, signInAsAdmin } from "./web-helpers";

interface SitePage {
  path: string;
  name: string;
  /** The status it answers; a list where it follows a setting another test changes. */
  status: number | number[];
}

let scored: string;
let gateFailed: string;

test.beforeAll(async () => {
  // The demo boards (records built by the judge's own record builder) give evaluation pages with every gate row.
  const prisma = createPrismaClient(readArenaInfo().databaseUrl);
  try {
    const ids = await seedDemoBoard(prisma);
    const rows = await prisma.evaluation.findMany({ where: { id: { in: ids } }, select: { id: true, result: true } });
    const lossless = (r: (typeof rows)[number]) =>
      ((r.result as { gates?: { pass: boolean }[] } | null)?.gates ?? []).every((g) => g.pass);
    scored = rows.find((r) => lossless(r))!.id;
    gateFailed = rows.find((r) => !lossless(r))!.id;
  } finally {
    await prisma.$disconnect();
  }
});

function sitePages(): SitePage[] {
  return [
    { path: "/", name: "home", status: 200 },
    { path: "/tasks/qwen3-8b", name: "task-qwen3-8b", status: 200 },
    { path: "/tasks/qwen35-27b", name: "task-qwen35-27b", status: 200 },
    { path: "/evaluations", name: "evaluations", status: 200 },
    { path: `/evaluations/${scored}`, name: "evaluation-scored", status: 200 },
    { path: `/evaluations/${gateFailed}`, name: "evaluation-gate-failed", status: 200 },
    { path: "/gates", name: "gates", status: 200 },
    { path: "/protocol", name: "protocol", status: 200 },
    { path: "/guide", name: "guide", status: 200 },
    { path: "/api-docs", name: "api-docs", status: 200 },
    { path: "/submit", name: "submit", status: 200 },
    { path: "/admin/sign-in", name: "admin-sign-in", status: 200 },
    // open (the form) or closed (a 404 page that says so), as the operators last left it
    { path: "/register", name: "register", status: [200, 404] },
    { path: "/evaluations/doesnotexist", name: "not-found-evaluation", status: 404 },
    { path: "/tasks/nope", name: "not-found-task", status: 404 },
    // the test signs in first: the operators' page, and every public page as an operator sees it
    { path: "/admin", name: "admin", status: 200 },
  ];
}

test("every page at 390 px and on a desktop: no sideways scrolling, nothing serious for axe, kept as screenshots", async ({
  page,
  arena,
}, testInfo) => {
  test.setTimeout(4 * 60_000);
  await signInAsAdmin(page, arena);
  const problems: string[] = [];
  // the two widths side by side, a page each (the server renders one while the browser checks the other)
  const sweep = async (page: Page, viewport: (typeof WIDTHS)[number]) => {
    await page.setViewportSize(viewport);
    for (const site of sitePages()) {
      const started = Date.now();
      const response = await page.goto(site.path);
      expect([site.status].flat(), site.path).toContain(response?.status());
      await expect(page.getByRole("main")).toHaveCount(1);
      await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
      await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
      if (site.name.startsWith("evaluation-")) await expect(page.locator(".recharts-surface").first()).toBeVisible();
      // Next streams a dynamic page's metadata after its body: axe reads the page once its title has arrived
      await expect(page).toHaveTitle(/\S/);
      problems.push(...(await pageProblems(page, `${site.path} at ${viewport.width} px`)));
      await keepScreenshot(page, testInfo, `${site.name}-${viewport.name}`);
      console.log(`[site] ${site.path} at ${viewport.width} px: ${Date.now() - started} ms`);
    }
  };
  const second = await page.context().newPage();
  await Promise.all([sweep(page, WIDTHS[0]), sweep(second, WIDTHS[1])]);
  await second.close();
  expect(problems).toEqual([]);
});

test("on a phone every gate's result is on screen, and each chart has its figures as a table", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  for (const id of [scored, gateFailed]) {
    await page.goto(`/evaluations/${id}`);
    const rows = page.getByTestId("gate-table").locator("tbody tr");
    await expect(rows).toHaveCount(8);
    for (const row of await rows.all()) {
      const result = row.locator("td").last();
      await result.scrollIntoViewIfNeeded();
      await expect(result).toBeVisible();
      await expect(result).toContainText(/pass|fail/);
      const box = (await result.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
    }
  }
  // a failed gate reads as its rule: the limit says when it fails, the measurement shows the interval it is judged by
  await expect(page.getByTestId("gate-table")).toContainText(
    "fails only if the whole 95% interval (1.96 standard errors each way) lies beyond",
  );
  await expect(page.getByTestId("gate-table")).toContainText(/95% interval [−+]?\d/);

  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`/evaluations/${scored}`);
  const tables = page.getByTestId("chart-table");
  await expect(tables).toHaveCount(3);
  for (const table of await tables.all()) {
    await table.getByText("The figures as a table").click();
    const cells = table.locator("tbody tr");
    expect(await cells.count()).toBeGreaterThan(2);
    await expect(table.locator("tbody")).toContainText(/tok\/s|ms/);
  }
});

test("an address with nothing behind it answers 404, light, with the not-found page", async ({ browser, baseURL }) => {
  // each page in a context of its own, so no script comes from the cache a page before it filled; the bodies are
  // summed once all have arrived (an async listener's `bytes += await ...` would keep only the last one's length)
  const scriptBytes = async (path: string, notFound = false) => {
    const context = await browser.newContext({ baseURL });
    try {
      const page = await context.newPage();
      const bodies: Promise<number>[] = [];
      page.on("response", (response) => {
        if (response.request().resourceType() === "script")
          bodies.push(
            response.body().then(
              (b) => b.length,
              () => 0,
            ),
          );
      });
      const response = await page.goto(path);
      await page.waitForLoadState("networkidle");
      if (notFound) await expect(page.getByRole("heading", { level: 1, name: "Not found" })).toBeVisible();
      const bytes = (await Promise.all(bodies)).reduce((a, b) => a + b, 0);
      return { status: response?.status(), bytes };
    } finally {
      await context.close();
    }
  };
  const evaluation = await scriptBytes(`/evaluations/${scored}`);
  for (const path of ["/evaluations/doesnotexist", "/tasks/nope"]) {
    const missing = await scriptBytes(path, true);
    console.log(`[site] ${path}: ${missing.bytes} bytes of script; an evaluation page ${evaluation.bytes}`);
    expect(missing.status, path).toBe(404);
    // none of the evaluation page's charts: well under what that page loads
    expect(missing.bytes, `${path} loads ${missing.bytes} bytes of script`).toBeLessThan(evaluation.bytes - 150_000);
  }
});

test("the arena's icon and social image are in public/, named by every page's head", async ({ page, request }) => {
  await page.goto("/");
  const icons = await page
    .locator('link[rel="icon"]')
    .evaluateAll((links) => links.map((l) => [l.getAttribute("href"), l.getAttribute("type")]));
  expect(icons).toEqual(
    expect.arrayContaining([
      ["/icon.svg", "image/svg+xml"],
      ["/favicon.png", "image/png"],
    ]),
  );
  const apple = await page.locator('link[rel="apple-touch-icon"]').getAttribute("href");
  const social = await page.locator('meta[property="og:image"]').getAttribute("content");
  expect(social).toBe(new URL("/social.png", readArenaInfo().url).toString());
  await expect(page.locator('meta[name="twitter:card"]')).toHaveAttribute("content", "summary_large_image");

  const png = async (url: string) => {
    const response = await request.get(url);
    expect(response.status(), url).toBe(200);
    expect(response.headers()["content-type"]).toBe("image/png");
    const body = await response.body();
    // the PNG signature, then IHDR's width and height
    expect(body.subarray(1, 4).toString("latin1")).toBe("PNG");
    return [body.readUInt32BE(16), body.readUInt32BE(20)];
  };
  expect(await png("/favicon.png")).toEqual([32, 32]);
  expect(await png(apple!)).toEqual([180, 180]);
  expect(await png(social!)).toEqual([1200, 630]);
  const svg = await request.get("/icon.svg");
  expect(svg.status()).toBe(200);
  expect(svg.headers()["content-type"]).toContain("image/svg+xml");
});

test("the page checks find what they look for: a sideways scroll, a serious axe finding, a link told by colour alone", async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto("/");
  await page.setContent(
    [
      '<html lang="en"><head><title>broken</title></head><body><main><h1>Broken</h1>',
      '<img src="/favicon.png">',
      '<p>Read <a href="/guide" style="text-decoration: none">the guide</a> first.</p>',
      '<div style="width: 900px">wide</div>',
      "</main></body></html>",
    ].join(""),
  );
  const problems = (await pageProblems(page, "broken")).join("\n");
  expect(problems).toMatch(/broken scrolls sideways by \d+ px/);
  expect(problems).toMatch(/broken: image-alt \(critical\)/);
  expect(problems).toMatch(/broken: link without underline: the guide → \/guide/);
});
