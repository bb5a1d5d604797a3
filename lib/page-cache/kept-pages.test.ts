import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as keptPageRoute } from "@/app/api/internal/kept-page/route";
import { GET as pageVersionRoute } from "@/app/api/internal/page-version/route";
import { seedDemoBoard } from "@/lib/board/demo/demo-board";
import { db } from "@/lib/db/client";
import { packDirectory } from "@/lib/engine-archive/pack-directory";
import { moveEvaluation } from "@/lib/evaluations/move-evaluation";
import { createSubmission } from "@/lib/submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "@/lib/testing/arena-test-context";
import { issueToken } from "@/lib/tokens/issue-token";
import { appPageCache, KEPT_HEADERS_HEADER, KEPT_VERSION_HEADER } from "./app-page-cache";
import { unpackKeptPage } from "./kept-page";
import { keepPage, readKeptPage, readKeptPageNow } from "./kept-pages";
import { pageVersion } from "./page-version";
import { RENDER_HEADER } from "./serve-page";
import { staleFinalPages } from "./stale-final-pages";

let context: ArenaTestContext;
let demoIds: string[];
let queuedId: string;
let liveId: string;

beforeAll(async () => {
  context = await setupArenaTestContext();
  demoIds = await seedDemoBoard(db());
  const issued = await issueToken({ accountName: "kept page reader" });
  const inline = (await packDirectory("lib/sim-engine/engines/stock")).toString("base64");
  const body = { task_id: "qwen3-8b", split: "dev", engine: { inline }, solution: { method: "m", kind: "ngram" } };
  const created = await createSubmission({ accountId: issued.accountId, kind: "participant" }, body, {
    enqueue: async () => {},
  });
  queuedId = created.evaluationId;
  liveId = (
    await createSubmission({ accountId: issued.accountId, kind: "participant" }, body, { enqueue: async () => {} })
  ).evaluationId;
});

afterAll(async () => {
  await context?.teardown();
});

const versionOf = async (id: string) => pageVersion({ kind: "evaluation", id });
const html = (text: string) => ({
  status: 200,
  headers: [
    ["content-type", "text/html; charset=utf-8"],
    ["content-security-policy", "default-src 'self'"],
  ] as [string, string][],
  body: new TextEncoder().encode(text.repeat(200)),
});
const unzipped = (body: ArrayBuffer) => new TextDecoder().decode(gunzipSync(new Uint8Array(body)));
const splitOf = async (id: string) =>
  (await db().evaluation.findUniqueOrThrow({ where: { id }, select: { submission: { select: { split: true } } } }))
    .submission.split;

describe("final evaluations' pages kept in PostgreSQL", () => {
  it("lists every final evaluation's page not kept, at the version the page cache asks for; never a running one", async () => {
    const stale = await staleFinalPages(1000);
    expect(stale.map((p) => p.evaluationId).sort()).toEqual([...demoIds].sort());
    expect(stale.some((p) => p.evaluationId === queuedId)).toBe(false);
    for (const p of stale) expect(p.version).toBe(await versionOf(p.evaluationId));
    expect(await staleFinalPages(2)).toHaveLength(2);
  });

  it("serves a kept page only at its version, as it was rendered, and lists it again once its version moves", async () => {
    for (const p of await staleFinalPages(1000)) await keepPage(p.evaluationId, p.version, html(p.evaluationId));
    expect(await staleFinalPages(1000)).toEqual([]);

    const [id] = demoIds as [string];
    const version = (await versionOf(id))!;
    const kept = unpackKeptPage((await readKeptPage(id, version))!);
    expect(new TextDecoder().decode(kept.body)).toBe(id.repeat(200));
    expect(kept.headers).toEqual(html(id).headers);
    expect(await readKeptPage(id, `${version}x`)).toBeNull();
    const stored = await db().keptEvaluationPage.findUniqueOrThrow({ where: { evaluationId: id } });
    expect(stored.body.byteLength).toBeLessThan(html(id).body.byteLength / 4);

    // a write to one evaluation's row (a refund): its page is due again, at the version now asked for, and, the
    // boards' last write having moved, every test result's page (its dev/test gap reads the scores)
    const testIds: string[] = [];
    const devIds: string[] = [];
    for (const d of demoIds) ((await splitOf(d)) === "test" ? testIds : devIds).push(d);
    expect(testIds.length * devIds.length).toBeGreaterThan(0);
    const dev = devIds[0]!;
    await db().evaluation.update({ where: { id: dev }, data: { refunded: true } });
    const due = await staleFinalPages(1000);
    expect(due.map((p) => p.evaluationId).sort()).toEqual([dev, ...testIds].sort());
    for (const p of due) expect(p.version).toBe(await versionOf(p.evaluationId));
    for (const p of due) await keepPage(p.evaluationId, p.version, html(p.evaluationId));
    expect(await staleFinalPages(1000)).toEqual([]);

    // a new score moves the boards: every test result's page (its dev/test gap reads the scores) is due again
    await moveEvaluation(queuedId, "scored", { data: { specscore: 1.2, result: { score: 1.2 } } });
    const afterScore = await staleFinalPages(1000);
    expect(afterScore.map((p) => p.evaluationId).sort()).toEqual([...testIds, queuedId].sort());
    for (const p of afterScore) expect(p.version).toBe(await versionOf(p.evaluationId));
  });

  it("reads a page's version now with the page kept at it, as pageVersion and readKeptPage give them", async () => {
    // test results' pages are due after the last test's new score, the rest kept at their versions now
    const due = new Set((await staleFinalPages(1000)).map((p) => p.evaluationId));
    expect(due.size).toBeGreaterThan(0);
    for (const id of [...demoIds, queuedId, liveId, "no-such-evaluation"]) {
      const version = await versionOf(id);
      const now = await readKeptPageNow(id);
      expect(now.version).toBe(version);
      expect(now.page).toEqual(version === null ? null : await readKeptPage(id, version));
      expect(now.page === null).toBe(version === null || due.has(id));
    }
  });

  it("answers only this process's page cache, which its API limit per address never stops (it asks per page)", async () => {
    appPageCache();
    const key = (globalThis as { __arenaPageCache?: { key: string } }).__arenaPageCache!.key;
    const [id] = demoIds as [string];
    const version = (await versionOf(id))!;
    await keepPage(id, version, html(id));
    const path = encodeURIComponent(`/evaluations/${id}`);
    const ask = (
      route: typeof keptPageRoute,
      query: string,
      headers: Record<string, string> = { [RENDER_HEADER]: key },
    ) => route(new Request(`http://127.0.0.1/api/internal/x?${query}`, { headers }));

    const stranger = await ask(keptPageRoute, `path=${path}&version=${version}`, { [RENDER_HEADER]: "guess" });
    expect(stranger.status).toBe(404);
    expect(await stranger.json()).toEqual({ error: { code: "not_found", message: "no such route" } });

    const kept = await ask(keptPageRoute, `path=${path}&version=${encodeURIComponent(version)}`);
    expect(kept.status).toBe(200);
    // sent as kept, gzipped: the page cache unpacks it
    expect(kept.headers.get("content-type")).toBe("application/gzip");
    expect(unzipped(await kept.arrayBuffer())).toBe(id.repeat(200));
    expect(JSON.parse(kept.headers.get(KEPT_HEADERS_HEADER)!)).toEqual(html(id).headers);
    expect((await ask(keptPageRoute, `path=${path}&version=other`)).status).toBe(204);
    // without a version: the page at its version now, the version beside it (null for an evaluation not final)
    const now = await ask(keptPageRoute, `path=${path}`);
    expect(now.status).toBe(200);
    expect(JSON.parse(now.headers.get(KEPT_VERSION_HEADER)!)).toBe(version);
    expect(unzipped(await now.arrayBuffer())).toBe(id.repeat(200));
    const live = await ask(keptPageRoute, `path=${encodeURIComponent(`/evaluations/${liveId}`)}`);
    expect([live.status, live.headers.get(KEPT_VERSION_HEADER)]).toEqual([204, "null"]);
    await db().evaluation.update({ where: { id }, data: { refunded: true } });
    const moved = await ask(keptPageRoute, `path=${path}`);
    expect([moved.status, JSON.parse(moved.headers.get(KEPT_VERSION_HEADER)!)]).toEqual([204, await versionOf(id)]);
    const current = (await versionOf(id))!;
    await keepPage(id, current, html(id));
    expect((await ask(keptPageRoute, "path=%2F&version=v")).status).toBe(400);

    // more questions than API_REQUESTS_PER_MINUTE_PER_ADDRESS (600) from the one address: none is refused
    const statuses = new Map<number, number>();
    for (let i = 0; i < 350; i++) {
      for (const answer of await Promise.all([
        ask(pageVersionRoute, `path=${path}`),
        ask(keptPageRoute, `path=${path}&version=${encodeURIComponent(current)}`),
      ])) {
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
        await answer.arrayBuffer();
      }
    }
    expect([...statuses]).toEqual([[200, 700]]);
  });
});
