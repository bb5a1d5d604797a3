import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as budget } from "@/app/api/budget/route";
import { POST as register } from "@/app/api/register/route";
import { db } from "../db/client";
import { env, resetEnvForTests } from "../env";
import { resetRedisForTests } from "../queue/connection";
import { setRegistrationOpen } from "../settings/registration";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { serveHandler } from "../testing/serve-handler";
import { issueToken } from "../tokens/issue-token";
import { isAppError } from "./app-error";
import { installPeerAddress } from "./peer-address";
import { consume, limits } from "./rate-limit";
import { type LoopbackAnswer, loopbackRequest } from "./testing/loopback-request";

let ctx: ArenaTestContext;
let served: Awaited<ReturnType<typeof serveHandler>>;

const routes: Record<
  string,
  (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>
> = {
  "GET /api/budget": budget,
  "POST /api/register": register,
};

beforeAll(async () => {
  ctx = await setupArenaTestContext({
    TRUSTED_PROXY_HOPS: "0",
    AUTH_FAILURES_PER_MINUTE: "5",
    API_REQUESTS_PER_MINUTE_PER_TOKEN: "6",
    API_REQUESTS_PER_MINUTE_PER_ADDRESS: "30",
    REGISTRATIONS_PER_HOUR_PER_ADDRESS: "12",
  });
  installPeerAddress();
  served = await serveHandler(async (request) => {
    const route = routes[`${request.method} ${new URL(request.url).pathname}`];
    return route ? route(request, { params: Promise.resolve({}) }) : new Response(null, { status: 404 });
  });
});

afterAll(async () => {
  await served.close();
  await ctx.teardown();
});

const wrongToken = () => `spa_${randomBytes(24).toString("base64url")}`;

function getBudget(from: string, token: string, forwardedFor?: string): Promise<LoopbackAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (forwardedFor) headers["x-forwarded-for"] = forwardedFor;
  return loopbackRequest(`${served.url}/api/budget`, { from, headers });
}

function expectRetryAfter(answer: LoopbackAnswer, atMost: number): void {
  expect(answer.status).toBe(429);
  const seconds = Number(answer.headers["retry-after"]);
  expect(Number.isInteger(seconds)).toBe(true);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(atMost);
  expect(JSON.parse(answer.body).error.message).toMatch(new RegExp(`try again in ${seconds} s$`));
}

describe("the token API's limits, keyed on the socket's peer (no trusted proxy)", () => {
  it("answers 429 with Retry-After after the failure limit, whatever a rotating X-Forwarded-For says", async () => {
    const answers: LoopbackAnswer[] = [];
    for (let i = 0; i < 12; i++) {
      answers.push(await getBudget("127.0.0.11", wrongToken(), `198.51.100.${i + 1}, 203.0.113.${i + 1}`));
    }
    expect(answers.slice(0, 5).map((a) => a.status)).toEqual([401, 401, 401, 401, 401]);
    for (const answer of answers.slice(5)) {
      expectRetryAfter(answer, 60);
      expect(JSON.parse(answer.body).error.code).toBe("rate_limited");
    }
    // another address is its own bucket
    expect((await getBudget("127.0.0.12", wrongToken())).status).toBe(401);
  });

  it("still serves a valid token from the address that is over its failure limit", async () => {
    const { token } = await issueToken({ accountName: "behind-the-same-nat" });
    const refused = await getBudget("127.0.0.11", wrongToken(), "198.51.100.200");
    expectRetryAfter(refused, 60);
    const served = await getBudget("127.0.0.11", token, "198.51.100.201");
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body).account).toBe("behind-the-same-nat");
  });

  it("limits each token per minute, and not another token behind the same address", async () => {
    const busy = await issueToken({ accountName: "busy-client" });
    const other = await issueToken({ accountName: "quiet-client" });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await getBudget("127.0.0.13", busy.token)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200]);
    const refused = await getBudget("127.0.0.13", busy.token);
    expectRetryAfter(refused, 60);
    expect(JSON.parse(refused.body).error.message).toMatch(/^too many requests with this token/);
    expect((await getBudget("127.0.0.13", other.token)).status).toBe(200);
  });

  it("caps one address's requests per minute, valid tokens included, with Retry-After", async () => {
    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, i) => issueToken({ accountName: `flooder-${i}` }).then((t) => t.token)),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) statuses.push((await getBudget("127.0.0.14", tokens[i % 6]!)).status);
    expect(statuses.every((s) => s === 200)).toBe(true);
    const fresh = await issueToken({ accountName: "flooder-fresh" });
    const refused = await getBudget("127.0.0.14", fresh.token);
    expectRetryAfter(refused, 60);
    expect(JSON.parse(refused.body).error.message).toMatch(/^too many requests from this address/);
  });
});

describe("registration", () => {
  const registerAs = (from: string, name: string) =>
    loopbackRequest(`${served.url}/api/register`, {
      from,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });

  it("gives ten concurrent registrations of one name one 201 and nine 409, one account and one token", async () => {
    await setRegistrationOpen(true);
    const answers = await Promise.all(Array.from({ length: 10 }, () => registerAs("127.0.0.15", "same-name")));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409, 409, 409, 409, 409]);
    for (const answer of answers.filter((a) => a.status === 409)) {
      expect(JSON.parse(answer.body).error).toEqual({
        code: "conflict",
        message: 'name: an account named "same-name" exists',
      });
    }
    const account = await db().account.findUniqueOrThrow({ where: { name: "same-name" }, include: { tokens: true } });
    expect(account.tokens).toHaveLength(1);
    const { token } = JSON.parse(answers.find((a) => a.status === 201)!.body) as { token: string };
    expect((await getBudget("127.0.0.16", token)).status).toBe(200);
  });

  it("limits registrations per address, with Retry-After", async () => {
    // the ten above counted: two more fill the hour's twelve
    expect((await registerAs("127.0.0.15", "twelfth-a")).status).toBe(201);
    expect((await registerAs("127.0.0.15", "twelfth-b")).status).toBe(201);
    const refused = await registerAs("127.0.0.15", "thirteenth");
    expectRetryAfter(refused, 3600);
    expect(await db().account.findUnique({ where: { name: "thirteenth" } })).toBeNull();
    expect((await registerAs("127.0.0.17", "another-address")).status).toBe(201);
  });
});

describe("the limiter without Redis", () => {
  it("answers from each process's own window at once, and the limit still holds", async () => {
    Object.assign(process.env, { REDIS_URL: "redis://127.0.0.1:1" });
    resetEnvForTests();
    await resetRedisForTests();
    expect(env().REDIS_URL).toBe("redis://127.0.0.1:1");
    const limit = { ...limits.authFailures(), name: "no-redis" };
    const outcomes: string[] = [];
    const took: number[] = [];
    for (let i = 0; i < 7; i++) {
      const started = Date.now();
      await consume(limit, "192.0.2.55").then(
        () => outcomes.push("ok"),
        (error: unknown) => outcomes.push(isAppError(error) ? `${error.status}` : String(error)),
      );
      took.push(Date.now() - started);
    }
    expect(outcomes).toEqual(["ok", "ok", "ok", "ok", "ok", "429", "429"]);
    // the first call gives a new connection its moment (it is refused at once here); none waits on Redis after
    expect(took[0]).toBeLessThan(1_500);
    for (const ms of took.slice(1)) expect(ms).toBeLessThan(250);
    await resetRedisForTests();
  });
});
