import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getOne } from "@/app/api/submissions/[id]/route";
import { GET as listMine, POST as submit } from "@/app/api/submissions/route";
import { db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";
import { revokeToken } from "../tokens/revoke-token";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const launch = new TextEncoder().encode('#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n');
const engineInline = Buffer.from(gzipSync(writeTar([{ path: "launch.sh", data: launch, mode: 0o755 }]))).toString(
  "base64",
);
const validBody = () => ({
  task_id: "qwen3-8b",
  split: "dev",
  speculator: { uri: "my-org/qwen3-8b-eagle3", revision: COMMIT },
  engine: { inline: engineInline },
  solution: { method: "EAGLE-3, 4 tokens", kind: "eagle3" },
});

let ctx: ArenaTestContext;
let address = 0;

function call(
  // biome-ignore lint/suspicious/noExplicitAny: route handlers differ only in their params' shape
  handler: (r: Request, c: { params: Promise<any> }) => Promise<Response>,
  init: {
    method?: string;
    token?: string;
    body?: unknown;
    rawBody?: string;
    params?: Record<string, string>;
    url?: string;
  },
) {
  const headers = new Headers({ "content-type": "application/json", "x-forwarded-for": `10.0.0.${++address % 250}` });
  if (init.token) headers.set("authorization", `Bearer ${init.token}`);
  const request = new Request(init.url ?? "http://arena.test/api/submissions", {
    method: init.method ?? "POST",
    headers,
    body: init.rawBody ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  return handler(request, { params: Promise.resolve(init.params ?? {}) });
}

async function snapshot() {
  const d = db();
  return {
    submissions: await d.submission.count(),
    evaluations: await d.evaluation.count(),
    ledger: await d.budgetLedger.count(),
    jobs: await evaluationsQueue().count(),
  };
}

beforeAll(async () => {
  // Each call below comes through one trusted proxy, which names its caller in X-Forwarded-For.
  ctx = await setupArenaTestContext({ TRUSTED_PROXY_HOPS: "1" });
});
afterAll(async () => {
  await evaluationsQueue().obliterate({ force: true });
  await ctx.teardown();
});

describe("the submission API", () => {
  it("stores a submission made with an issued token and queues its evaluation by id only", async () => {
    const { token } = await issueToken({ accountName: "alice" });
    const response = await call(submit, { token, body: validBody() });
    expect(response.status).toBe(201);
    const created = (await response.json()) as { id: string; evaluationId: string; status: string };
    expect(created.status).toBe("queued");
    const row = await db().submission.findUniqueOrThrow({ where: { id: created.id }, include: { evaluations: true } });
    expect(row.taskId).toBe("qwen3-8b");
    expect(row.speculatorRevision).toBe(COMMIT);
    expect(row.engineSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(row.evaluations[0]!.status).toBe("queued");
    const job = await evaluationsQueue().getJob(created.evaluationId);
    expect(job?.data).toEqual({ evaluationId: created.evaluationId });

    const one = await call(getOne, { method: "GET", token, params: { id: created.id } });
    expect(one.status).toBe(200);
    const view = (await one.json()) as { evaluation: { status: string }; engine: { sha256: string } };
    expect(view.evaluation.status).toBe("queued");
    expect(JSON.stringify(view)).not.toContain(engineInline.slice(0, 40));

    const mine = await call(listMine, { method: "GET", token, url: "http://arena.test/api/submissions?mine=1" });
    const listed = (await mine.json()) as { submissions: { id: string }[] };
    expect(listed.submissions.map((s) => s.id)).toEqual([created.id]);
  });

  it("admits exactly 20 of 25 concurrent dev submissions on one account and task", async () => {
    const { token, accountId } = await issueToken({ accountName: "racer" });
    const responses = await Promise.all(Array.from({ length: 25 }, () => call(submit, { token, body: validBody() })));
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(20);
    expect(statuses.filter((s) => s === 403)).toHaveLength(5);
    const refused = (await responses.find((r) => r.status === 403)!.json()) as {
      error: { code: string; message: string };
    };
    expect(refused.error.code).toBe("budget_exhausted");
    expect(refused.error.message).toMatch(/20 of 20 dev/);
    expect(await db().submission.count({ where: { accountId } })).toBe(20);
    // Another task's budget is separate.
    const other = await call(submit, { token, body: { ...validBody(), task_id: "qwen35-27b" } });
    expect(other.status).toBe(201);
  });

  it("answers 401 saying which: missing, wrong, revoked", async () => {
    const missing = await call(submit, { body: validBody() });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/missing token/);

    const wrong = await call(submit, { token: "spa_not-a-real-token", body: validBody() });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/wrong token/);

    const issued = await issueToken({ accountName: "bob" });
    await revokeToken(issued.tokenId);
    const revoked = await call(submit, { token: issued.token, body: validBody() });
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { error: { code: string; message: string } }).error).toEqual({
      code: "unauthorized",
      message: "revoked token: ask the operators for a new one",
    });
  });

  it("rate-limits repeated failures from one address", async () => {
    const headers = {
      "content-type": "application/json",
      "x-forwarded-for": "192.0.2.77",
      authorization: "Bearer spa_x",
    };
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 22; i++) {
      const request = new Request("http://arena.test/api/submissions", { method: "POST", headers, body: "{}" });
      const response = await submit(request, { params: Promise.resolve({}) });
      statuses.push(response.status);
      retryAfter = response.headers.get("retry-after");
    }
    expect(statuses.slice(0, 20).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(20)).toEqual([429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
  });

  const bad: [string, (b: Record<string, unknown>) => unknown, RegExp][] = [
    ["not JSON", () => "{not json", /^body: not valid JSON/],
    ["an unknown task", (b) => ({ ...b, task_id: "llama-70b" }), /^task_id: is not a task/],
    ["an unknown split", (b) => ({ ...b, split: "prod" }), /^split: must be one of dev, test/],
    ["an unknown kind", (b) => ({ ...b, solution: { kind: "magic" } }), /^solution\.kind: must be one of/],
    [
      "a method over 60 characters",
      (b) => ({ ...b, solution: { kind: "eagle3", method: "m".repeat(61) } }),
      /^solution\.method: must be at most 60/,
    ],
    [
      "a speculator revision that is a branch",
      (b) => ({ ...b, speculator: { uri: "org/x", revision: "main" } }),
      /^speculator\.revision: must be an exact commit/,
    ],
    [
      "a speculator that is no Hub repository",
      (b) => ({ ...b, speculator: { uri: "not a repo", revision: COMMIT } }),
      /^speculator\.uri:/,
    ],
    [
      "an engine repository without an exact commit",
      (b) => ({ ...b, engine: { uri: "org/engine", revision: "v1" } }),
      /^engine\.revision: must be an exact commit/,
    ],
    [
      "an engine subdir that escapes",
      (b) => ({ ...b, engine: { uri: "org/engine", revision: COMMIT, subdir: "../x" } }),
      /^engine\.subdir:/,
    ],
    [
      "an inline archive over its limit",
      (b) => ({ ...b, engine: { inline: "A".repeat(2_800_004) } }),
      /^engine\.inline: is longer than 2,800,000/,
    ],
    [
      "an inline archive that is not base64",
      (b) => ({ ...b, engine: { inline: "%%%not base64%%%" } }),
      /^engine\.inline: is not base64/,
    ],
    [
      "an inline archive that is not gzip",
      (b) => ({ ...b, engine: { inline: Buffer.from("hello world").toString("base64") } }),
      /^engine\.inline: the archive is not a gzip/,
    ],
    [
      "an inline gzip that is not a tar",
      (b) => ({ ...b, engine: { inline: gzipSync(Buffer.alloc(700, 7)).toString("base64") } }),
      /^engine\.inline: the archive is not a tar/,
    ],
    [
      "an archive without launch.sh",
      (b) => ({
        ...b,
        engine: { inline: gzipSync(writeTar([{ path: "serve.sh", data: launch }])).toString("base64") },
      }),
      /^engine\.inline: the archive has no launch\.sh/,
    ],
    [
      "an archive with a path that escapes",
      (b) => ({
        ...b,
        engine: {
          inline: gzipSync(
            writeTar([
              { path: "launch.sh", data: launch },
              { path: "../../etc/cron.d/x", data: launch },
            ]),
          ).toString("base64"),
        },
      }),
      /^engine\.inline: the archive .*escapes/,
    ],
    [
      "an archive with a link",
      (b) => ({
        ...b,
        engine: {
          inline: gzipSync(
            writeTar([
              { path: "launch.sh", data: launch },
              { path: "l", type: "symlink", linkTarget: "/" },
            ]),
          ).toString("base64"),
        },
      }),
      /^engine\.inline: the archive holds a link/,
    ],
    [
      "an archive holding launch.sh both as a file and as a folder",
      (b) => ({
        ...b,
        engine: {
          inline: gzipSync(
            writeTar([
              { path: "launch.sh/", type: "directory" },
              { path: "launch.sh", data: launch },
            ]),
          ).toString("base64"),
        },
      }),
      /^engine\.inline: the archive holds "launch\.sh" both as a file and as a folder$/,
    ],
    [
      "an archive holding one path twice",
      (b) => ({
        ...b,
        engine: {
          inline: gzipSync(
            writeTar([
              { path: "launch.sh", data: launch },
              { path: "launch.sh", data: launch },
            ]),
          ).toString("base64"),
        },
      }),
      /^engine\.inline: the archive holds "launch\.sh" twice/,
    ],
    [
      "an archive whose launch.sh is a folder",
      (b) => ({
        ...b,
        engine: {
          inline: gzipSync(writeTar([{ path: "launch.sh/serve", data: launch }])).toString("base64"),
        },
      }),
      /^engine\.inline: the archive holds "launch\.sh" as a folder: it must be a file$/,
    ],
    ["an unknown field", (b) => ({ ...b, priority: "high" }), /priority|Unrecognized/],
    ["an unknown profile", (b) => ({ ...b, profile: "turbo" }), /^profile: is not a profile/],
  ];

  it.each(bad)("refuses %s with a 400 naming the field and changes nothing", async (_name, mutate, message) => {
    const { token } = await issueToken({ accountName: "mallory" });
    const before = await snapshot();
    const body = mutate(validBody());
    const response = await call(submit, typeof body === "string" ? { token, rawBody: body } : { token, body });
    expect(response.status).toBe(400);
    const payload = (await response.json()) as { error: { code: string; message: string } };
    expect(payload.error.code).toBe("invalid_request");
    expect(payload.error.message).toMatch(message);
    expect(await snapshot()).toEqual(before);
  });
});
