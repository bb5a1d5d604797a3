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

  // Under each chart, its figures as a table: one row an entry, p50 to p99 in ms.
  const tables = charts.getByTestId("chart-table");
  await expect(tables).toHaveCount(2);
  for (const table of await tables.all()) {
    await table.getByText("The figures as a table").click();
    await expect(table.locator("tbody tr")).toHaveCount(2);
    await expect(table.locator("tbody tr", { hasText: first })).toContainText(/[\d.]+ ms/);
    await expect(table.locator("tbody tr", { hasText: second })).toContainText(/[\d.]+ ms/);
  }

  await compare.getByRole("radio", { name: "busy", exact: true }).check();
  await expect(charts.getByRole("img", { name: /^Time to first token, busy/ })).toBeVisible();
  await keepScreenshot(page, testInfo, "task-board-compare-latency");

  // The speedup chart above the board has its table too, a row an entry with its three workloads' speedups.
  const speedups = page.getByTestId("chart-table").first();
  await speedups.getByText("The figures as a table").click();
  await expect(speedups.locator("thead")).toContainText("solo");
  await expect(speedups.locator("tbody tr", { hasText: first })).toContainText(/\d\.\d{2}×/);
});
