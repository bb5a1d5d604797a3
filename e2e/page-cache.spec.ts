import type { APIResponse } from "@playwright/test";
import { createPrismaClient } from "../lib/db/client";
import { ACTIVE_STATUSES } from "../lib/evaluations/status-machine";
import { expect, test } from "./support/arena";
import { readArenaInfo } from "./support/arena-info";
import { signInAsAdmin } from "./web-helpers";

const CACHE = "x-arena-page-cache";
/** How long the evaluations and settings must stay unwritten before a kept page can be expected to stay a hit. */
const QUIET_MS = 5_000;
/**
 * Every evaluation the earlier tests queued has ended and nothing writes them any more: the home page's version
 * moves with any write to an evaluation (lib/page-cache/page-version.ts), and a worker still writes one after its
 * final move (the pod stopped, its GPU time recorded), so a final status alone does not make the version still.
 */
async function untilNothingRuns(): Promise<void> {
  const prisma = createPrismaClient(readArenaInfo().databaseUrl);
  const written = async () => {
    const [row] = await prisma.$queryRaw<{ n: number; latest: Date | null; settings: Date | null }[]>`
      SELECT count(*)::int AS n, max("updatedAt") AS latest,
             (SELECT max("updatedAt") FROM "Setting") AS settings FROM "Evaluation"`;
    return `${row?.n}@${row?.latest?.getTime()}|${row?.settings?.getTime()}`;
  };
  try {
    let last = "";
    let since = Date.now();
    await expect
      .poll(
        async () => {
          const active = await prisma.evaluation.count({ where: { status: { in: [...ACTIVE_STATUSES] } } });
          const now = await written();
          if (now !== last || active > 0) {
            last = now;
            since = Date.now();
          }
          return active === 0 && Date.now() - since >= QUIET_MS;
        },
        { timeout: 180_000, intervals: [500] },
      )
      .toBe(true);
  } finally {
    await prisma.$disconnect();
  }
}

type Prisma = ReturnType<typeof createPrismaClient>;
const FINAL = ["scored", "failed", "void", "cancelled"] as const;
const lastFinal = (prisma: Prisma) =>
  prisma.evaluation.findFirst({
    where: { status: { in: [...FINAL] }, submission: { split: "dev" } },
    orderBy: { updatedAt: "desc" },
    select: { id: true, status: true, gpuSeconds: true },
  });
/** A dev evaluation cancelled in the queue, for a run of this file alone (the other files' evaluations are final). */
async function cancelledOne(prisma: Prisma) {
  const account = await prisma.account.create({ data: { name: `page cache ${Date.now().toString(36)}` } });
  const protocol = await prisma.protocolVersion.findFirstOrThrow({ select: { version: true } });
  const submission = await prisma.submission.create({
    data: {
      accountId: account.id,
      taskId: "qwen3-8b",
      split: "dev",
      protocolVersion: protocol.version,
      engineSource: "repository",
      engineUri: "example/engine",
      kind: "ngram",
    },
  });
  return prisma.evaluation.create({
    data: { submissionId: submission.id, status: "cancelled", seed: 1, finishedAt: new Date() },
    select: { id: true, status: true, gpuSeconds: true },
  });
}

const csp = (r: APIResponse) => r.headersArray().filter((h) => h.name.toLowerCase() === "content-security-policy");

test.describe("the rendered-page cache in front of the public pages", () => {
  test("serves a reader who is not signed in the page rendered at the boards' current version, and moves with it", async ({
    page,
    arena,
    playwright,
  }) => {
    test.setTimeout(240_000);
    await untilNothingRuns();
    // a reader with no cookies at all
    const reader = await playwright.request.newContext({ baseURL: arena.url });
    try {
      const first = await reader.get("/");
      expect(first.status()).toBe(200);
      expect(["miss", "hit"]).toContain(first.headers()[CACHE]);
      const again = await reader.get("/?utm_source=feed");
      expect(again.headers()[CACHE]).toBe("hit");
      // the page itself, decoded once as a browser decodes it (a body compressed twice would read as gzip here)
      expect(await first.text()).toMatch(/^<!DOCTYPE html>/i);
      expect(await again.text()).toBe(await first.text());
      expect(again.headers()["content-encoding"]).toMatch(/^(gzip|br|deflate)$/);
      // served again with the arena's headers, once each
      expect(csp(again)).toHaveLength(1);
      expect(again.headers()["x-frame-options"]).toBe("DENY");
      expect(again.headers()["content-type"]).toContain("text/html");

      const task = await reader.get("/tasks/qwen3-8b?page=1");
      expect(task.status()).toBe(200);
      expect((await reader.get("/tasks/qwen3-8b")).headers()[CACHE]).toBe("hit");
      expect((await reader.get("/tasks/nope")).status()).toBe(404);

      // a browser with no session reads the kept home page and follows its links
      const browser = await page.context().browser()!.newContext();
      try {
        const anonymous = await browser.newPage();
        const home = await anonymous.goto(`${arena.url}/`);
        expect(home?.headers()[CACHE]).toBe("hit");
        await anonymous.getByRole("link", { name: "Get a token →" }).click();
        await expect(anonymous).toHaveURL(/\/guide#token$/);
      } finally {
        await browser.close();
      }

      // the operators open or close registration: the home page's token help is rendered anew for the next reader
      await signInAsAdmin(page, arena);
      const wasOpen = (await page.getByTestId("registration-state").textContent())?.includes("open") ?? false;
      await page.getByRole("button", { name: wasOpen ? "Close registration" : "Open registration" }).click();
      await expect(page.getByTestId("registration-state")).toContainText(wasOpen ? "closed" : "open");
      // a page's version is asked at most once a second (lib/page-cache/app-page-cache.ts): then a new render (a loaded machine renders slowly)
      let moved = "";
      await expect
        .poll(
          async () => {
            const r = await reader.get("/");
            moved = await r.text();
            return r.headers()[CACHE] === "miss" || moved.includes("Registration is open") === !wasOpen;
          },
          { timeout: 10_000, intervals: [100] },
        )
        .toBe(true);
      expect(moved.includes("Registration is open")).toBe(!wasOpen);
      expect((await reader.get("/")).headers()[CACHE]).toBe("hit");

      // a signed-in reader (the operator's session cookie) is never served a kept page
      const signedIn = await page.request.get("/");
      expect(signedIn.status()).toBe(200);
      expect(signedIn.headers()[CACHE]).toBeUndefined();
      // and the App Router's own payload requests go to the app
      const payload = await reader.get("/", { headers: { rsc: "1" } });
      expect(payload.headers()[CACHE]).toBeUndefined();

      await page.goto("/admin");
      await page.getByRole("button", { name: wasOpen ? "Open registration" : "Close registration" }).click();
      await expect(page.getByTestId("registration-state")).toContainText(wasOpen ? "open" : "closed");
    } finally {
      await reader.dispose();
    }
  });
  test("a final evaluation's page is rendered ahead of its first reader, kept in PostgreSQL and served from there", async ({
    arena,
    playwright,
  }) => {
    test.setTimeout(120_000);
    const prisma = createPrismaClient(readArenaInfo().databaseUrl);
    const reader = await playwright.request.newContext({ baseURL: arena.url });
    try {
      const final = (await lastFinal(prisma)) ?? (await cancelledOne(prisma));
      const { id, status } = final;
      // a write to its row moves its page's version: whatever the web process held of it is of the version before
      const { updatedAt } = await prisma.evaluation.update({
        where: { id },
        data: { gpuSeconds: final.gpuSeconds },
        select: { updatedAt: true },
      });
      const version = `${status}@${updatedAt.getTime()}`;
      // no reader asks for it: the web process's prerender renders and keeps it at the new version
      await expect
        .poll(async () => (await prisma.keptEvaluationPage.findUnique({ where: { evaluationId: id } }))?.version, {
          timeout: 60_000,
          intervals: [500],
        })
        .toBe(version);
      const first = await reader.get(`/evaluations/${id}`);
      expect(first.status()).toBe(200);
      expect(first.headers()[CACHE]).toBe("kept");
      expect(await first.text()).toMatch(/^<!DOCTYPE html>/i);
      expect(csp(first)).toHaveLength(1);
      expect(first.headers()["content-type"]).toContain("text/html");
      const again = await reader.get(`/evaluations/${id}`);
      expect(again.headers()[CACHE]).toBe("hit");
      expect(await again.text()).toBe(await first.text());
    } finally {
      await reader.dispose();
      await prisma.$disconnect();
    }
  });
  test("GET /api/protocol is the document rendered at build time, sent as it is, never compressed again per answer", async ({
    arena,
    playwright,
  }) => {
    const reader = await playwright.request.newContext({ baseURL: arena.url });
    try {
      const answer = await reader.get("/api/protocol", { headers: { "accept-encoding": "gzip, br" } });
      expect(answer.status()).toBe(200);
      expect(answer.headers()["x-nextjs-cache"]).toBe("HIT");
      expect(answer.headers()["cache-control"]).toBe("public, max-age=60, no-transform");
      expect(answer.headers()["content-encoding"]).toBeUndefined();
      const body = await answer.json();
      expect(body).toMatchObject({
        version: "1",
        calibration: { "qwen3-8b": { kind: "speculatorarena.calibration" } },
      });
    } finally {
      await reader.dispose();
    }
  });
});
