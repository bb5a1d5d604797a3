import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packEngineDirectory } from "../client/engine-directory";
import { evaluationsQueue } from "../queue/evaluations-queue";
import { resetEventHubForTests } from "../queue/event-hub";
import { setRegistrationOpen } from "../settings/registration";
import { SIM_ENGINE_DIRS } from "../sim-engine";
import { appRoutes, serveApp } from "../testing/app-routes";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { readSse } from "../testing/sse-client";
import { issueToken } from "../tokens/issue-token";
import { openApiDocument } from "./document";

// The OpenAPI document against the app: it validates as OpenAPI 3.1, it lists every public API route, and every
// operation it lists is called on the app's route handlers over a real socket, each answer's status documented and
// its body valid against the documented schema (the document's own JSON Schema, through Ajv).

type Json = Record<string, unknown>;
interface Operation {
  responses: Record<string, { content?: Record<string, { schema: Json }> }>;
  requestBody?: { content: Record<string, { schema: Json }> };
}

const BASE = "https://arena.test/openapi.json";
let ctx: ArenaTestContext;
let server: Awaited<ReturnType<typeof serveApp>>;
let doc: Json & { paths: Record<string, Record<string, Operation>>; components: Json };
let ajv: Ajv2020;
let alice: string;
let bob: string;
let study: string;
let inline: string;
const answered = new Map<string, Set<string>>();
const METRICS_TOKEN = "the-operators-metrics-token";

/** Calls the app as a client would and checks the answer against the document; returns its JSON (or text). */
async function call(
  method: string,
  template: string,
  options: { path?: string; token?: string; body?: unknown; headers?: Record<string, string>; expect: number },
): Promise<unknown> {
  const operation = doc.paths[template]?.[method.toLowerCase()];
  expect(operation, `${method} ${template} is documented`).toBeDefined();
  if (options.body !== undefined && operation!.requestBody) {
    const valid = ajv.validate(schemaOf(operation!.requestBody.content["application/json"]!.schema), options.body);
    // the document refuses exactly the bodies the app refuses as invalid (a valid body may still meet a 401 or a 403)
    expect(valid, `${method} ${template}'s body against the document`).toBe(options.expect !== 400);
  }
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const controller = new AbortController();
  const response = await fetch(`${server.url}${options.path ?? template}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: controller.signal,
  });
  const label = `${method} ${options.path ?? template}`;
  const documented = operation!.responses[String(response.status)];
  const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim();
  if (type === "text/event-stream") controller.abort();
  const text = type === "text/event-stream" ? "" : await response.text();
  expect(response.status, `${label}: ${text.slice(0, 300)}`).toBe(options.expect);
  expect(documented, `${label} answered ${response.status}, which the document lists`).toBeDefined();
  const media = documented!.content?.[type];
  expect(media, `${label} answered ${type}, which the document lists for ${response.status}`).toBeDefined();
  answered.set(
    `${method} ${template}`,
    (answered.get(`${method} ${template}`) ?? new Set()).add(String(response.status)),
  );
  if (type !== "application/json") return text;
  const body = JSON.parse(text) as unknown;
  const valid = ajv.validate(schemaOf(media!.schema), body);
  expect(valid, `${label}'s ${response.status} body against the document: ${ajv.errorsText()}`).toBe(true);
  return body;
}

const schemaOf = (schema: Json) =>
  typeof schema.$ref === "string" ? { $ref: `${BASE}${schema.$ref}` } : (schema as Record<string, unknown>);

beforeAll(async () => {
  ctx = await setupArenaTestContext({ METRICS_TOKEN });
  doc = openApiDocument("http://localhost:3000") as typeof doc;
  ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema({ $id: BASE, components: doc.components });
  server = await serveApp();
  alice = (await issueToken({ accountName: "alice" })).token;
  bob = (await issueToken({ accountName: "bob" })).token;
  study = (await issueToken({ accountName: "study agent", kind: "study" })).token;
  inline = (await packEngineDirectory(`${SIM_ENGINE_DIRS}eagle`)).inline;
});

afterAll(async () => {
  await server?.close();
  await evaluationsQueue().obliterate({ force: true });
  await resetEventHubForTests();
  await ctx.teardown();
});

describe("the OpenAPI document", () => {
  it("validates as OpenAPI 3.1 and is what GET /api/openapi.json serves", async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
    const served = await call("GET", "/api/openapi.json", { expect: 200 });
    expect(served).toEqual(openApiDocument((served as { servers: { url: string }[] }).servers[0]!.url));
  });

  it("lists every public API route of the app, and only routes the app has", () => {
    const routes = appRoutes()
      .map((r) => `/${r.segments.map((s) => (s.startsWith(":") ? `{${s.slice(1)}}` : s)).join("/")}`)
      // /api/internal/ answers only the web process's own page cache (any other caller gets 404): not an API
      .filter(
        (p) =>
          p.startsWith("/api/") &&
          !p.startsWith("/api/admin/") &&
          !p.startsWith("/api/auth/") &&
          !p.startsWith("/api/internal/"),
      );
    expect(Object.keys(doc.paths).sort()).toEqual([...new Set(routes)].sort());
  });

  it("is answered by the app with the documented statuses and shapes, operation by operation", async () => {
    const body = (task = "qwen3-8b") => ({
      task_id: task,
      split: "dev",
      engine: { inline },
      solution: { method: "EAGLE-like, 3 tokens", kind: "eagle3" },
      profile: "ci",
    });
    // submissions
    const created = (await call("POST", "/api/submissions", { token: alice, body: body(), expect: 201 })) as {
      id: string;
    };
    await call("POST", "/api/submissions", { token: alice, body: body("qwen9-1b"), expect: 400 });
    await call("POST", "/api/submissions", { body: body(), expect: 401 });
    for (let i = 0; i < 6; i++) await call("POST", "/api/submissions", { token: study, body: body(), expect: 201 });
    const spent = await call("POST", "/api/submissions", { token: study, body: body(), expect: 403 });
    expect(spent).toMatchObject({ error: { code: "budget_exhausted" } });
    const mine = (await call("GET", "/api/submissions", { token: alice, expect: 200 })) as { submissions: unknown[] };
    expect(mine.submissions).toHaveLength(1);
    await call("GET", "/api/submissions", { token: "spa_unknown", expect: 401 });
    const one = `/api/submissions/${created.id}`;
    await call("GET", "/api/submissions/{id}", { path: one, token: alice, expect: 200 });
    await call("GET", "/api/submissions/{id}", { path: "/api/submissions/nope", token: alice, expect: 404 });
    await call("GET", "/api/submissions/{id}", { path: one, expect: 401 });
    await call("GET", "/api/submissions/{id}/events", { path: `${one}/events`, expect: 200 });
    await call("GET", "/api/submissions/{id}/events", { path: "/api/submissions/nope/events", expect: 404 });
    await call("POST", "/api/submissions/{id}/cancel", { path: `${one}/cancel`, token: bob, expect: 403 });
    const cancelled = await call("POST", "/api/submissions/{id}/cancel", {
      path: `${one}/cancel`,
      token: alice,
      expect: 200,
    });
    expect(cancelled).toEqual({ status: "cancelled", refunded: true });
    await call("POST", "/api/submissions/{id}/cancel", { path: `${one}/cancel`, token: alice, expect: 409 });
    await call("POST", "/api/submissions/{id}/cancel", {
      path: "/api/submissions/nope/cancel",
      token: alice,
      expect: 404,
    });
    await call("POST", "/api/submissions/{id}/cancel", { path: `${one}/cancel`, expect: 401 });
    // the stream of an ended evaluation: its state, every stored event, the final status, then the end
    const stream = await readSse(`${server.url}${one}/events`, {});
    expect(stream.ended).toBe(true);
    expect(stream.events[0]!.event).toBe("state");
    expect(stream.events.at(-1)).toMatchObject({ event: "status", data: { status: "cancelled" } });

    // the arena
    const budget = (await call("GET", "/api/budget", { token: alice, expect: 200 })) as { budget: { used: number }[] };
    expect(budget.budget.every((b) => b.used === 0)).toBe(true);
    await call("GET", "/api/budget", { expect: 401 });
    await call("GET", "/api/board", { path: "/api/board?task=qwen3-8b", expect: 200 });
    await call("GET", "/api/board", { path: "/api/board?task=qwen9-1b", expect: 400 });
    await call("GET", "/api/board", { path: "/api/board", expect: 400 });
    await call("GET", "/api/protocol", { expect: 200 });
    await call("GET", "/api/health", { expect: 200 });
    await call("GET", "/api/metrics", { token: METRICS_TOKEN, expect: 200 });
    await call("GET", "/api/metrics", { token: alice, expect: 401 });
    await call("GET", "/api/protocol/{version}", { path: "/api/protocol/1", expect: 200 });
    await call("GET", "/api/protocol/{version}", { path: "/api/protocol/99", expect: 404 });
    await call("POST", "/api/register", { body: { name: "newcomer" }, expect: 403 });
    await setRegistrationOpen(true);
    await call("POST", "/api/register", { body: { name: "newcomer" }, expect: 201 });
    await call("POST", "/api/register", { body: { name: "newcomer" }, expect: 409 });
    await call("POST", "/api/register", { body: { name: "x" }, expect: 400 });

    // every operation the document lists was answered, its success among the answers
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const got = answered.get(`${method.toUpperCase()} ${path}`);
        expect(got, `${method.toUpperCase()} ${path} was called`).toBeDefined();
        const success = Object.keys(operation.responses).filter((s) => s.startsWith("2"));
        expect(
          success.some((s) => got!.has(s)),
          `${method.toUpperCase()} ${path} answered its success`,
        ).toBe(true);
      }
    }
  });
});
