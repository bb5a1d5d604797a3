import { seedDemoBoard } from "../lib/board/demo/demo-board";
import { createPrismaClient } from "../lib/db/client";
import { expect, test } from "./support/arena";
import { readArenaInfo } from "./support/arena-info";
import { keepScreenshot } from "./web-helpers";

test.beforeAll(async () => {
  // The run's arena gets the demo boards: scored records built by the judge's own record builder, so the reader
  // has entries with latency figures to compare whatever else has run.
  const prisma = createPrismaClient(readArenaInfo().databaseUrl);
  try {
    await seedDemoBoard(prisma);
  } finally {
    await prisma.$disconnect();
  }
});

test("a reader picks two entries on a task board and compares their TTFT and TPOT distributions", async ({
  page,
}, testInfo) => {
  await page.goto("/tasks/qwen3-8b");
  const compare = page.locator("section", {
    has: page.getByRole("heading", { name: "Compare latency distributions" }),
  });
  const boxes = compare.getByRole("checkbox");
  // the board streams in after the page's loading state, and its boxes are enabled once React has hydrated
  await expect(boxes.first()).toBeEnabled();
  for (const box of await boxes.all()) if (await box.isChecked()) await box.uncheck();
  await expect(compare.getByText("Pick one or more entries")).toBeVisible();

  const first = "EAGLE-3 RedHatAI k=3 · reference";
  const second = "n-gram k=4 · reference";
  await compare.getByRole("checkbox", { name: first, exact: true }).check();
  await compare.getByRole("checkbox", { name: second, exact: true }).check();
  const charts = compare.getByTestId("latency-charts");
  await expect(charts).toBeVisible();

  const ttft = charts.getByRole("img", { name: /^Time to first token, solo/ });
  const tpot = charts.getByRole("img", { name: /^Time per output token, solo/ });
  for (const chart of [ttft, tpot]) {
    await expect(chart).toBeVisible();
    const label = (await chart.getAttribute("aria-label")) ?? "";
    expect(label).toContain(first);
    expect(label).toContain(second);
    // Both entries drawn as bars at p50, p90 and p99.
    await expect(chart.locator(".recharts-bar-rectangle")).toHaveCount(6);
  }
  const tpotLabel = (await tpot.getAttribute("aria-label")) ?? "";
  expect(tpotLabel).toMatch(/EAGLE-3 RedHatAI k=3 · reference: p50 [\d.]+ ms/);

  await compare.getByRole("radio", { name: "busy", exact: true }).check();
  await expect(charts.getByRole("img", { name: /^Time to first token, busy/ })).toBeVisible();
  await keepScreenshot(page, testInfo, "task-board-compare-latency");
});

test("every public page renders, with one main landmark and one h1, on a desktop and a phone", async ({
  page,
}, testInfo) => {
  const paths = ["/", "/tasks/qwen3-8b", "/tasks/qwen35-27b", "/gates", "/protocol", "/submit", "/admin/sign-in"];
  for (const viewport of [
    { name: "desktop", width: 1280, height: 900 },
    { name: "phone", width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    for (const path of paths) {
      const response = await page.goto(path);
      expect(response?.status(), path).toBe(200);
      await expect(page.getByRole("main")).toHaveCount(1);
      await expect(page.getByRole("heading", { level: 1 })).toHaveCount(1);
      await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
      const name = path === "/" ? "home" : path.slice(1).replaceAll("/", "-");
      await keepScreenshot(page, testInfo, `${name}-${viewport.name}`);
    }
  }
  await page.goto("/");
  const first = page.locator("a[href^='/evaluations/']").first();
  await first.click();
  await expect(page.getByRole("heading", { name: "Everything the judge recorded" })).toBeVisible();
  await keepScreenshot(page, testInfo, "evaluation-demo");
  // Pages behind a loading state stream, so an unknown address shows the not-found page rather than a 404 status.
  for (const path of ["/evaluations/no-such-evaluation", "/tasks/no-such-task"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1, name: "Not found" })).toBeVisible();
  }
});
