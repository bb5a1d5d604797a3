import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getOne } from "@/app/api/submissions/[id]/route";
import { POST as submit } from "@/app/api/submissions/route";
import { db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";

const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const launch = new TextEncoder().encode('#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n');
const engineInline = gzipSync(writeTar([{ path: "launch.sh", data: launch, mode: 0o755 }])).toString("base64");
const validBody = (): Record<string, unknown> => ({
  task_id: "qwen3-8b",
  split: "dev",
  speculator: { uri: "my-org/qwen3-8b-eagle3", revision: COMMIT },
  engine: { inline: engineInline },
  solution: { method: "EAGLE-3, 4 tokens", kind: "eagle3" },
});

let ctx: ArenaTestContext;
let token: string;
let caller = 0;

beforeAll(async () => {
  ctx = await setupArenaTestContext({
    // each call names its caller as one trusted proxy would, so that the address limits stay out of the way
    TRUSTED_PROXY_HOPS: "1",
    ENGINE_ARCHIVE_MAX_FILES: "50",
    ENGINE_ARCHIVE_MAX_UNPACKED_BYTES: String(1024 * 1024),
  });
  token = (await issueToken({ accountName: "abuser" })).token;
});
afterAll(async () => {
  await evaluationsQueue().obliterate({ force: true });
  await ctx.teardown();
});

function post(body: BodyInit, options: { token?: string; headers?: Record<string, string> } = {}) {
  const request = new Request("http://arena.test/api/submissions", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      authorization: `Bearer ${options.token ?? token}`,
      "x-forwarded-for": `192.0.2.${++caller % 250}`,
      ...options.headers,
    },
    body,
    ...(body instanceof ReadableStream ? { duplex: "half" } : {}),
  } as RequestInit);
  return submit(request, { params: Promise.resolve({}) });
}

async function stored() {
  return {
    submissions: await db().submission.count(),
    evaluations: await db().evaluation.count(),
    ledger: await db().budgetLedger.count(),
    jobs: await evaluationsQueue().count(),
  };
}

async function refusal(response: Response) {
  return {
    status: response.status,
    ...((await response.json()) as { error: { code: string; message: string } }).error,
  };
}

describe("a submission's strings", () => {
  const cases: [string, string, RegExp][] = [
    [
      "a NUL in solution.method",
      JSON.stringify({ ...validBody(), solution: { method: "EAGLE\u0000-3", kind: "eagle3" } }),
      /^solution\.method: contains a NUL character$/,
    ],
    [
      "a lone surrogate in solution.method",
      JSON.stringify({ ...validBody(), solution: { method: "EAGLE \ud800", kind: "eagle3" } }),
      /^solution\.method: contains a lone UTF-16 surrogate/,
    ],
    [
      "a lone low surrogate written as an escape",
      JSON.stringify(validBody()).replace('"EAGLE-3, 4 tokens"', '"EAGLE-3 \\udc00"'),
      /^solution\.method: contains a lone UTF-16 surrogate/,
    ],
    [
      "a NUL in speculator.uri",
      JSON.stringify({ ...validBody(), speculator: { uri: "org/x\u0000", revision: COMMIT } }),
      /^speculator\.uri: contains a NUL character$/,
    ],
    ["a NUL in task_id", JSON.stringify({ ...validBody(), task_id: "qwen3-8b\u0000" }), /^task_id: contains a NUL/],
    [
      "a NUL in a field's name",
      JSON.stringify({ ...validBody(), "pri\u0000ority": 1 }),
      /^body: a field name contains a NUL character$/,
    ],
  ];

  it.each(cases)("refuses %s with a 400 naming the field, storing nothing", async (_name, body, message) => {
    const before = await stored();
    const answer = await refusal(await post(body));
    expect(answer.status).toBe(400);
    expect(answer.code).toBe("invalid_request");
    expect(answer.message).toMatch(message);
    expect(await stored()).toEqual(before);
  });

  it("refuses bytes that are not UTF-8 by name", async () => {
    const answer = await refusal(await post(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d])));
    expect(answer).toMatchObject({ status: 400, message: "body: not valid UTF-8" });
  });

  it("refuses a NUL or a lone surrogate in a path id with a 400 naming it", async () => {
    for (const [id, problem] of [
      ["abc\u0000def", "contains a NUL character"],
      ["abc\ud800", "contains a lone UTF-16 surrogate (not valid Unicode)"],
    ] as const) {
      const request = new Request("http://arena.test/api/submissions/x", {
        headers: { authorization: `Bearer ${token}`, "x-forwarded-for": "192.0.2.251" },
      });
      const answer = await refusal(await getOne(request, { params: Promise.resolve({ id }) }));
      expect(answer).toEqual({ status: 400, code: "invalid_request", message: `id: ${problem}` });
    }
  });
});

describe("a submission's inline archive", () => {
  it("is refused past the file-count limit with a 400 naming the limit", async () => {
    const files = Array.from({ length: 60 }, (_, i) => ({ path: `plugin/m${i}.py`, data: new Uint8Array(2) }));
    const inline = gzipSync(writeTar([{ path: "launch.sh", data: launch }, ...files])).toString("base64");
    const before = await stored();
    const answer = await refusal(await post(JSON.stringify({ ...validBody(), engine: { inline } })));
    expect(answer).toEqual({
      status: 400,
      code: "invalid_request",
      message: "engine.inline: the archive holds more than 50 files and folders (the limit)",
    });
    expect(await stored()).toEqual(before);
  });

  it("is refused past the unpacked-bytes limit with a 400 naming the limit", async () => {
    const inline = gzipSync(
      writeTar([
        { path: "launch.sh", data: launch },
        { path: "weights.bin", data: new Uint8Array(2 * 1024 * 1024) },
      ]),
    ).toString("base64");
    expect(inline.length).toBeLessThan(10_000);
    const answer = await refusal(await post(JSON.stringify({ ...validBody(), engine: { inline } })));
    expect(answer).toEqual({
      status: 400,
      code: "invalid_request",
      message: "engine.inline: the archive unpacks to more than 1,048,576 bytes (the limit)",
    });
  });
});

describe("a submission's engine repository", () => {
  it.each([
    ["https://127.0.0.1/org/engine", "127.0.0.1"],
    ["https://internal.example/org/engine.git", "internal.example"],
    ["https://github.com.evil.example/org/engine", "github.com.evil.example"],
  ])("refuses %s at submission with a 400 naming the host", async (uri, host) => {
    const before = await stored();
    const answer = await refusal(await post(JSON.stringify({ ...validBody(), engine: { uri, revision: COMMIT } })));
    expect(answer).toEqual({
      status: 400,
      code: "invalid_request",
      message: `engine.uri: host "${host}" is not allowed: engine repositories are fetched from github.com, huggingface.co`,
    });
    expect(await stored()).toEqual(before);
  });

  it("accepts an allowed host, and the operators' own base for org/repo", async () => {
    for (const uri of ["https://GitHub.com/org/engine", "https://huggingface.co/org/engine", "org/engine"]) {
      expect((await post(JSON.stringify({ ...validBody(), engine: { uri, revision: COMMIT } }))).status).toBe(201);
    }
  });
});

describe("a submission's body size", () => {
  it("is refused with 413 on its declared length, before a byte is read", async () => {
    const before = await stored();
    const answer = await refusal(
      await post(JSON.stringify(validBody()), { headers: { "content-length": String(50 * 1024 * 1024) } }),
    );
    expect(answer).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(answer.message).toBe("body: larger than 3,145,728 bytes");
    expect(await stored()).toEqual(before);
  });

  it("is cut off with 413 while it streams without a declared length, its stream cancelled", async () => {
    let pulled = 0;
    let cancelled = false;
    const chunk = new Uint8Array(256 * 1024).fill(0x20);
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 50 * 1024 * 1024) return controller.close();
        pulled += chunk.length;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      },
    });
    const before = await stored();
    const answer = await refusal(await post(body));
    expect(answer).toMatchObject({ status: 413, code: "payload_too_large" });
    expect(cancelled).toBe(true);
    expect(pulled).toBeLessThan(4 * 1024 * 1024);
    expect(await stored()).toEqual(before);
  });
});

describe("50 concurrent submissions at a budget edge", () => {
  it("admits exactly what is left of the budget, and charges exactly that", async () => {
    const edge = await issueToken({ accountName: "at-the-edge" });
    for (let i = 0; i < 17; i++)
      expect((await post(JSON.stringify(validBody()), { token: edge.token })).status).toBe(201);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => post(JSON.stringify(validBody()), { token: edge.token })),
    );
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(47);
    const refused = await refusal(answers.find((a) => a.status === 403)!);
    expect(refused).toMatchObject({
      code: "budget_exhausted",
      message: "budget: 20 of 20 dev evaluations on qwen3-8b used",
    });
    expect(answers.some((a) => a.headers.get("retry-after") !== null)).toBe(false);
    const charges = await db().budgetLedger.aggregate({
      where: { accountId: edge.accountId, taskId: "qwen3-8b", split: "dev" },
      _sum: { amount: true },
    });
    expect(charges._sum.amount).toBe(20);
    expect(await db().submission.count({ where: { accountId: edge.accountId } })).toBe(20);
  });
});
