import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { expect, test } from "./support/arena";
import { keepScreenshot } from "./web-helpers";

const CLI = path.resolve(import.meta.dirname, "../lib/client/bin/speculatorarena.mjs");

/** The commands a code block names: `python3 -m speculatorarena.client VERB ...` or `speculatorarena VERB ...`. */
function commands(blocks: string[], prefix: RegExp): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const block of blocks) {
    // a command continued over several lines with `\` is one command
    for (const command of block.replace(/\\\n\s*/g, " ").split("\n")) {
      const match = prefix.exec(command);
      if (!match) continue;
      const options = found.get(match[1]!) ?? new Set<string>();
      for (const option of command.slice(match.index).match(/--[a-z-]+/g) ?? []) options.add(option);
      found.set(match[1]!, options);
    }
  }
  return found;
}

test("the guide's commands are the clients' own: each named verb and option is one the client takes", async ({
  page,
}, testInfo) => {
  test.setTimeout(4 * 60_000);
  await page.goto("/");
  await page.getByRole("link", { name: "Get a token →" }).click();
  await expect(page).toHaveURL(/\/guide#token$/);
  await expect(page.getByRole("heading", { level: 2, name: "Getting a token" })).toBeVisible();
  for (const name of [
    "Quick start",
    "The engine directory",
    "A complete launch.sh: vLLM with a speculator",
    "Try it with the local kit",
    "Submit",
    "Statuses",
    "Why an evaluation scored 0, failed, or is void",
    "Budgets",
  ]) {
    await expect(page.getByRole("heading", { level: 2, name })).toBeVisible();
  }
  await expect(page.getByRole("table", { name: "The environment of launch.sh serve" })).toContainText("SPECULATOR");
  await keepScreenshot(page, testInfo, "guide");
  const blocks = await page.locator("pre").allInnerTexts();

  const python = commands(blocks, /python3 -m speculatorarena\.client (\w+)/);
  const cli = commands(blocks, /(?:^|\s)speculatorarena (\w+)/);
  expect([...python.keys()].sort()).toEqual(["board", "budget", "status", "submit", "watch"]);
  expect([...cli.keys()].sort()).toEqual(["board", "budget", "local", "status", "submit", "watch"]);

  // the Python client, followed from the guide's own link and run as the guide says, with the machine's python3
  const work = mkdtempSync(path.join(tmpdir(), "guide-clients-"));
  try {
    const href = await page.getByRole("link", { name: "the Python client alone" }).getAttribute("href");
    const served = await page.request.get(href!);
    expect(served.status()).toBe(200);
    mkdirSync(path.join(work, "speculatorarena"));
    writeFileSync(path.join(work, "speculatorarena", "client.py"), await served.body());
    for (const [verb, options] of python) {
      const help = execFileSync("python3", ["-m", "speculatorarena.client", verb, "--help"], {
        cwd: work,
        encoding: "utf8",
      });
      expect(help).toContain(`usage: python3 -m speculatorarena.client ${verb}`);
      for (const option of options) expect(help, `${verb} ${option}`).toContain(option);
    }
    // the CLI (what `npx speculatorarena` runs): each verb exists, and takes each option the guide gives it
    for (const [verb, options] of cli) {
      expect(spawnSync(process.execPath, [CLI, verb, "--help"], { cwd: work }).status, verb).toBe(0);
      for (const option of options) {
        const probe = spawnSync(process.execPath, [CLI, verb, option], { cwd: work, encoding: "utf8" });
        expect(probe.stderr, `${verb} ${option}`).not.toMatch(/Unknown option|takes no --/);
      }
    }
    const bogus = spawnSync(process.execPath, [CLI, "deploy", "--help"], { cwd: work, encoding: "utf8" });
    expect(bogus.status).toBe(2);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }

  // the API the clients speak, readable
  await page.getByRole("link", { name: "/api-docs" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "The arena's API" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: "POST /api/submissions", exact: true })).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: "Error", exact: true })).toBeVisible();
  await keepScreenshot(page, testInfo, "api-docs");
});
