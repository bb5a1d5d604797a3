import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "../db/client";
import { writeTar } from "../engine-archive/write-tar";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { setRegistrationOpen } from "../settings/registration";
import { createSubmission } from "../submissions/create-submission";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { issueToken } from "../tokens/issue-token";
import { revokeToken } from "../tokens/revoke-token";

/**
 * Sends generated bad requests to every route under app/api, as Next would route them, and asserts that none is
 * answered with a 5xx and that nothing is stored. "Bad" by construction: each request is wrong in at least one way
 * the route must refuse (bad JSON, wrong types, huge strings, NUL, lone surrogates, unknown fields, bad ids, bad
 * methods, bad tokens, bad origins, oversized bodies), so a request that changed something would be a defect.
 */

const SECRET = "fuzzing-session-secret-value";
const ADMIN = "operator@arena.test";
const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const REQUESTS = 1_200;

type Handler = (request: Request, context: { params: Promise<Record<string, string | string[]>> }) => Promise<Response>;
interface Route {
  /** The route's path pattern, as its folders name it: /api/submissions/[id]/cancel */
  pattern: string;
  params: { name: string; catchAll: boolean }[];
  module: Record<string, unknown>;
}

/** Every app/api/**\/route.ts, with its exported methods and its dynamic segments. */
async function discoverRoutes(): Promise<Route[]> {
  const routes: Route[] = [];
  for (const entry of await readdir("app/api", { recursive: true })) {
    if (!entry.endsWith("route.ts")) continue;
    const dir = entry.split("/").slice(0, -1);
    const pattern = `/api/${dir.join("/")}`.replace(/\/$/, "");
    const params = dir
      .filter((part) => part.startsWith("["))
      .map((part) => ({ name: part.replace(/^\[(\.\.\.)?|\]$/g, ""), catchAll: part.startsWith("[...") }));
    routes.push({ pattern, params, module: await import(/* @vite-ignore */ join(process.cwd(), "app/api", entry)) });
  }
  return routes;
}

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;

/**
 * Next's App Router dispatch: the exported handler for the method; HEAD served by GET and OPTIONS answered by Next
 * itself when not exported; any other method a route does not export is a 405 from Next, never reaching the arena.
 */
async function dispatch(route: Route, request: Request, params: Record<string, string | string[]>): Promise<Response> {
  const own = route.module[request.method] as Handler | undefined;
  const handler = own ?? (request.method === "HEAD" ? (route.module.GET as Handler | undefined) : undefined);
  if (handler) return handler(request, { params: Promise.resolve(params) });
  if (request.method === "OPTIONS") return new Response(null, { status: 204 });
  return new Response(null, { status: 405 });
}

/** A small seeded generator (mulberry32), so a failure names a request that can be replayed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { int, pick: <T>(items: readonly T[]): T => items[int(items.length)]!, chance: (p: number) => next() < p };
}
type Random = ReturnType<typeof random>;

const launch = new TextEncoder().encode('#!/usr/bin/env bash\ncase "$1" in serve) exec true;; esac\n');
const engineInline = gzipSync(writeTar([{ path: "launch.sh", data: launch, mode: 0o755 }])).toString("base64");
const validSubmission = () => ({
  task_id: "qwen3-8b",
  split: "dev",
  speculator: { uri: "my-org/qwen3-8b-eagle3", revision: COMMIT },
  engine: { inline: engineInline },
  solution: { method: "EAGLE-3, 4 tokens", kind: "eagle3" },
});

/** Values no field of the arena accepts in that place. */
const BAD_STRINGS = [
  "",
  "\u0000",
  "nul\u0000inside",
  "\ud800",
  "lone \udfff low",
  "x".repeat(10_000),
  "😀".repeat(500),
  "../../etc/passwd",
  "' OR 1=1 --",
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a lookup string, sent as plain text on purpose
  "${jndi:ldap://x}",
  "<script>alert(1)</script>",
];
const WRONG_TYPES = [null, 0, -1, 1e308, true, [], [1, 2], {}, { nested: { deeper: [null] } }];

/** Bad values for each field of a submission: every one of them alone makes the body invalid. */
const SUBMISSION_MUTATIONS: Record<string, unknown[]> = {
  task_id: [...WRONG_TYPES, ...BAD_STRINGS, "QWEN3-8B", "qwen3-8b ", "llama-70b"],
  split: [...WRONG_TYPES, ...BAD_STRINGS, "prod", "Dev"],
  speculator: [
    0,
    "org/x",
    [],
    { uri: 1 },
    { uri: "org/x", revision: "main" },
    { uri: "org/x\u0000", revision: COMMIT },
    { uri: "org/x", revision: COMMIT, extra: 1 },
    { uri: "not a repo", revision: COMMIT },
    { uri: "https://huggingface.co/org/x/tree/main" },
  ],
  engine: [
    ...WRONG_TYPES,
    "inline",
    { inline: 1 },
    { inline: "%%%not base64%%%" },
    { inline: Buffer.from("not a gzip").toString("base64") },
    { inline: gzipSync(Buffer.alloc(1000, 7)).toString("base64") },
    { inline: "A".repeat(2_800_004) },
    { uri: "org/engine" },
    { uri: "org/engine", revision: "v1" },
    { uri: "https://127.0.0.1/org/engine", revision: COMMIT },
    { uri: "https://internal.example/org/engine", revision: COMMIT },
    { uri: "ext::sh -c touch% /tmp/pwned", revision: COMMIT },
    { uri: "org/engine", revision: COMMIT, subdir: "../x" },
    { uri: "org/engine", revision: COMMIT, subdir: "/etc" },
    { inline: engineInline, uri: "org/engine" },
  ],
  solution: [
    ...WRONG_TYPES,
    { kind: "magic" },
    { kind: "eagle3", method: 1 },
    { kind: "eagle3", method: "m".repeat(61) },
    { kind: "eagle3", method: "a\u0000b" },
    { kind: "eagle3", method: "\ud83d" },
    { kind: "eagle3", extra: true },
  ],
  profile: [0, [], "turbo", "smoke\u0000", "\udc00"],
  priority: ["high"],
  "field\u0000name": [1],
};

/** JSON texts that are not JSON, or not an object, or not UTF-8. */
const BROKEN_BODIES: (string | Uint8Array)[] = [
  "",
  "{",
  "[1,",
  "nul",
  '{"a":}',
  "{'single': 'quotes'}",
  "\u0000",
  '{"a":"\u0000"}',
  "1e999999",
  "[".repeat(5_000),
  `${"[".repeat(200)}${"]".repeat(200)}`,
  JSON.stringify(Array.from({ length: 2_000 }, (_, i) => i)),
  new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]),
  new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d, 0xff]),
];

const BAD_IDS = [
  "",
  "\u0000",
  "abc\u0000",
  "\ud800",
  "x".repeat(5_000),
  "../../etc/passwd",
  "%00",
  "' OR '1'='1",
  "😀",
  "null",
  "-1",
  "clxxxxxxxxxxxxxxxxxxxxxxx",
];

interface Fixture {
  token: string;
  otherToken: string;
  revokedToken: string;
  adminCookie: string;
  submissionId: string;
}

interface Generated {
  describe: string;
  method: string;
  path: string;
  params: Record<string, string | string[]>;
  headers: Record<string, string>;
  body?: string | Uint8Array | ReadableStream<Uint8Array>;
}

function badTokenHeader(r: Random, f: Fixture): Record<string, string> {
  return r.pick<Record<string, string>>([
    {},
    { authorization: "" },
    { authorization: "Bearer" },
    { authorization: "Bearer " },
    { authorization: "Bearer spa_" },
    { authorization: "Bearer spa_not-a-real-token" },
    { authorization: `Bearer spa_${"A".repeat(4_000)}` },
    { authorization: "Bearer sk-not-an-arena-token" },
    { authorization: "Basic dXNlcjpwYXNz" },
    { authorization: `Bearer ${f.token} extra` },
    { authorization: `Bearer ${f.revokedToken}` },
    { authorization: `bearer\t${f.token.slice(0, -1)}` },
  ]);
}

function jsonBody(r: Random, base: Record<string, unknown>, mutations: Record<string, unknown[]>): string {
  const body: Record<string, unknown> = { ...base };
  const fields = Object.keys(mutations);
  for (let i = 0, n = 1 + r.int(3); i < n; i++) {
    const field = r.pick(fields);
    body[field] = r.pick(mutations[field]!);
  }
  return JSON.stringify(body);
}

function oversized(r: Random, limit: number): Generated["body"] {
  if (r.chance(0.5)) return `{"x":"${"y".repeat(limit + 10)}"}`;
  let sent = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent > limit * 4) return controller.close();
      sent += 64 * 1024;
      controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
    },
  });
}

function paramsFor(r: Random, route: Route, f: Fixture, bad: boolean): Record<string, string | string[]> {
  const params: Record<string, string | string[]> = {};
  for (const { name, catchAll } of route.params) {
    if (catchAll)
      params[name] = bad ? [r.pick(BAD_IDS), r.pick(BAD_IDS)] : r.pick([["session"], ["csrf"], ["providers"]]);
    else if (name === "version") params[name] = r.pick(BAD_IDS);
    else params[name] = bad ? r.pick(BAD_IDS) : f.submissionId;
  }
  return params;
}

/** One bad request for `route`. */
function generate(r: Random, route: Route, f: Fixture): Generated {
  const exported = METHODS.filter((m) => typeof route.module[m] === "function");
  const kind = r.int(10);
  const headers: Record<string, string> = {};
  let method: string = exported.length > 0 ? r.pick(exported) : "GET";
  let body: Generated["body"];
  let what = "";
  const isAdmin = route.pattern.startsWith("/api/admin");
  const isAuth = route.pattern.startsWith("/api/auth");
  const isRegister = route.pattern === "/api/register";
  const isSubmit = route.pattern === "/api/submissions" && method === "POST";
  let params = paramsFor(r, route, f, true);

  if (kind === 0) {
    method = r.pick(METHODS.filter((m) => !exported.includes(m) || m === "HEAD"));
    what = `a method the route does not export (${method})`;
  } else if (kind === 1 && !isAuth) {
    Object.assign(headers, badTokenHeader(r, f));
    what = `a bad token (${(headers.authorization ?? "none").slice(0, 30)})`;
    params = paramsFor(r, route, f, r.chance(0.5));
  } else if (kind === 2 && route.params.length > 0) {
    what = `bad ids ${JSON.stringify(params).slice(0, 60)}`;
  } else if (kind === 3) {
    body = oversized(r, isSubmit ? 3 * 1024 * 1024 : 64 * 1024);
    method = r.pick(["POST", "PUT", "PATCH"]);
    what = "a body over the limit";
  } else if (kind === 4) {
    const declared = r.pick(["abc", "-1", "1e3", "99999999999", `${64 * 1024 + 1}`, `${4 * 1024 * 1024}`]);
    headers["content-length"] = declared;
    body = "{}";
    method = r.pick(["POST", "PUT"]);
    what = `a content-length of ${declared}`;
  } else {
    body = r.pick(BROKEN_BODIES);
    what = "a body that is not a JSON object";
    if (isSubmit && r.chance(0.7)) {
      body = jsonBody(r, validSubmission(), SUBMISSION_MUTATIONS);
      what = "a submission with bad fields";
    } else if (isRegister && r.chance(0.7)) {
      body = jsonBody(
        r,
        { name: "would-be-fine" },
        { name: [...WRONG_TYPES, ...BAD_STRINGS, "a", "bad/name", "x".repeat(61)], extra: [1] },
      );
      what = "a registration with bad fields";
    } else if (isAdmin && route.pattern.endsWith("/registration") && r.chance(0.7)) {
      body = jsonBody(r, {}, { open: [...WRONG_TYPES, "true", "\u0000"], other: [true] });
      what = "a registration switch with bad fields";
    } else if (isAdmin && route.pattern.endsWith("/tokens") && r.chance(0.7)) {
      body = jsonBody(
        r,
        { accountName: "would-be-fine" },
        {
          accountName: [...WRONG_TYPES, ...BAD_STRINGS, "a"],
          kind: ["god", 1],
          label: ["l".repeat(81), 5],
          extra: [1],
        },
      );
      what = "a token request with bad fields";
    }
    if (route.params.length > 0 && r.chance(0.5)) {
      // the real submission, asked about by another account: routes that read no body must refuse it for that
      params = paramsFor(r, route, f, false);
      headers.authorization = `Bearer ${f.otherToken}`;
    }
    if (!exported.includes(method as (typeof METHODS)[number]) || method === "GET") method = r.pick(["POST", "PUT"]);
    if (route.module[method] === undefined) method = exported.find((m) => m !== "GET") ?? method;
  }

  // the credentials that let the request reach the route's own checks: a token, or the operator's session
  if (!isAuth && headers.authorization === undefined && kind !== 1) {
    headers.authorization = `Bearer ${r.chance(0.8) ? f.token : f.otherToken}`;
  }
  if (isAdmin) {
    if (r.chance(0.75)) headers.cookie = `next-auth.session-token=${f.adminCookie}`;
    if (r.chance(0.7)) {
      headers.origin = "http://arena.test";
      headers["content-type"] ??= "application/json";
    } else {
      Object.assign(
        headers,
        r.pick([
          { origin: "https://evil.example" },
          { "sec-fetch-site": "cross-site" },
          { "content-type": "text/plain" },
        ]),
      );
    }
  } else if (body !== undefined) {
    headers["content-type"] ??= r.pick(["application/json", "text/plain", "application/x-www-form-urlencoded"]);
  }
  if (method === "GET" || method === "HEAD") body = undefined;
  return { describe: what, method, path: route.pattern, params, headers, body };
}

/** Requests the arena's own wrapper of next-auth must refuse before next-auth sees them. */
function generateForAuth(r: Random, route: Route): Generated {
  const kind = r.int(3);
  if (kind === 0) {
    return {
      describe: "an oversized sign-in body",
      method: "POST",
      path: route.pattern,
      params: { nextauth: ["callback", "credentials"] },
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: oversized(r, 64 * 1024),
    };
  }
  if (kind === 1) {
    return {
      describe: "a NUL or a lone surrogate in next-auth's path",
      method: r.pick(["GET", "POST"]),
      path: route.pattern,
      params: { nextauth: [r.pick(["callback", "session"]), r.pick(["\u0000", "a\ud800", "x\u0000y"])] },
      headers: {},
    };
  }
  return {
    describe: "a declared sign-in body over the limit",
    method: "POST",
    path: route.pattern,
    params: { nextauth: ["callback", "credentials"] },
    headers: { "content-length": String(r.pick([65 * 1024, 10 * 1024 * 1024])), "content-type": "text/plain" },
    body: "email=a&password=b",
  };
}

let ctx: ArenaTestContext;
let fixture: Fixture;

async function stored() {
  const d = db();
  return {
    accounts: await d.account.count(),
    tokens: await d.apiToken.count(),
    revoked: await d.apiToken.count({ where: { revokedAt: { not: null } } }),
    submissions: await d.submission.count(),
    evaluations: await d.evaluation.findMany({ select: { id: true, status: true }, orderBy: { id: "asc" } }),
    ledger: await d.budgetLedger.count(),
    events: await d.evaluationEvent.count(),
    settings: await d.setting.findMany({ orderBy: { key: "asc" } }),
    jobs: await evaluationsQueue().count(),
  };
}

beforeAll(async () => {
  ctx = await setupArenaTestContext({
    NEXTAUTH_SECRET: SECRET,
    ADMIN_EMAIL: ADMIN,
    ADMIN_PASSWORD: "operator-password",
    ARENA_PUBLIC_URL: "http://arena.test",
    // the limits have tests of their own; here every request must reach the checks behind them
    API_REQUESTS_PER_MINUTE_PER_ADDRESS: "1000000",
    API_REQUESTS_PER_MINUTE_PER_TOKEN: "1000000",
    AUTH_FAILURES_PER_MINUTE: "1000000",
    REGISTRATIONS_PER_HOUR_PER_ADDRESS: "1000000",
  });
  const participant = await issueToken({ accountName: "fuzz-target" });
  const other = await issueToken({ accountName: "fuzz-other" });
  const revoked = await issueToken({ accountName: "fuzz-revoked" });
  await revokeToken(revoked.tokenId);
  const created = await createSubmission({ accountId: participant.accountId, kind: "participant" }, validSubmission(), {
    enqueue: async () => {},
  });
  // open, so that registration bodies are read and refused for what they hold
  await setRegistrationOpen(true);
  fixture = {
    token: participant.token,
    otherToken: other.token,
    revokedToken: revoked.token,
    adminCookie: await encode({
      token: { email: ADMIN, name: "Arena operator", sub: ADMIN, role: "admin" },
      secret: SECRET,
    }),
    submissionId: created.id,
  };
});

afterAll(async () => {
  await evaluationsQueue().obliterate({ force: true });
  await ctx.teardown();
});

describe("the API under generated bad requests", () => {
  it(`answers ${REQUESTS} of them across every route without a 5xx, and stores nothing`, async () => {
    const routes = await discoverRoutes();
    expect(routes.map((r) => r.pattern)).toEqual(
      expect.arrayContaining([
        "/api/submissions",
        "/api/submissions/[id]",
        "/api/submissions/[id]/cancel",
        "/api/submissions/[id]/events",
        "/api/register",
        "/api/budget",
        "/api/protocol",
        "/api/protocol/[version]",
        "/api/admin/registration",
        "/api/admin/tokens",
        "/api/admin/tokens/[id]/revoke",
        "/api/auth/[...nextauth]",
      ]),
    );
    const r = random(20261201);
    const before = await stored();
    const failures: string[] = [];
    const statuses = new Map<number, number>();
    const perRoute = new Map<string, number>();
    for (let i = 0; i < REQUESTS; i++) {
      const route = routes[i % routes.length]!;
      const g = route.pattern.startsWith("/api/auth") ? generateForAuth(r, route) : generate(r, route, fixture);
      const url = `http://arena.test${g.path}${r.chance(0.2) ? `?lastEventId=%00&mine=%ED%A0%80&task=%FF` : ""}`;
      const request = new Request(url, {
        method: g.method,
        headers: { host: "arena.test", ...g.headers },
        body: g.body as BodyInit | undefined,
        ...(g.body instanceof ReadableStream ? { duplex: "half" } : {}),
      } as RequestInit);
      let status: number;
      try {
        const response = await dispatch(route, request, g.params);
        status = response.status;
        await response.body?.cancel().catch(() => undefined);
      } catch (error) {
        status = 599;
        failures.push(`#${i} ${g.method} ${g.path} (${g.describe}) threw ${String(error).slice(0, 200)}`);
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      perRoute.set(route.pattern, (perRoute.get(route.pattern) ?? 0) + 1);
      if (status >= 500 && status !== 599) failures.push(`#${i} ${g.method} ${g.path} (${g.describe}): ${status}`);
    }
    expect(failures).toEqual([]);
    expect(await stored()).toEqual(before);
    // the requests reached the routes' own refusals, not only Next's 405
    for (const status of [400, 401, 403, 404, 405, 413, 415]) expect(statuses.get(status) ?? 0).toBeGreaterThan(0);
    expect([...perRoute.values()].every((n) => n >= Math.floor(REQUESTS / routes.length))).toBe(true);
  });
});
