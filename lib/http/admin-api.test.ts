import { encode } from "next-auth/jwt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getRegistration, PUT as putRegistration } from "@/app/api/admin/registration/route";
import { POST as issue } from "@/app/api/admin/tokens/route";
import { db } from "../db/client";
import { isRegistrationOpen } from "../settings/registration";
import type { ArenaTestContext } from "../testing/arena-test-context";
import { OPERATOR, setupOperatorContext } from "../testing/operator-session";

const SECRET = OPERATOR.secret;
const EMAIL = OPERATOR.email;

let ctx: ArenaTestContext;
let session: string;

beforeAll(async () => {
  ({ ctx, session } = await setupOperatorContext());
});
afterAll(async () => {
  await ctx.teardown();
});

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

function call(
  handler: Handler,
  init: { method?: string; headers?: Record<string, string>; body?: string; cookie?: string | null } = {},
) {
  const headers: Record<string, string> = { host: "arena.test", ...init.headers };
  const cookie = init.cookie === undefined ? `next-auth.session-token=${session}` : init.cookie;
  if (cookie) headers.cookie = cookie;
  return handler(
    new Request("http://arena.test/api/admin/registration", { method: init.method ?? "GET", headers, body: init.body }),
    { params: Promise.resolve({}) },
  );
}

const json = { "content-type": "application/json" };

describe("the operators' JSON API", () => {
  it("serves the operator's session from the arena's own pages", async () => {
    const read = await call(getRegistration, {
      headers: { origin: "http://arena.test", "sec-fetch-site": "same-origin" },
    });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual({ open: false });
    const opened = await call(putRegistration, {
      method: "PUT",
      headers: { ...json, origin: "http://arena.test", "sec-fetch-site": "same-origin" },
      body: '{"open":true}',
    });
    expect(opened.status).toBe(200);
    expect(await isRegistrationOpen()).toBe(true);
  });

  it("refuses a cross-origin request that carries the session cookie, changing nothing", async () => {
    const crossOrigin: Record<string, string>[] = [
      { origin: "https://evil.example" },
      { origin: "null" },
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site", origin: "https://admin.arena.test" },
    ];
    for (const headers of crossOrigin) {
      const response = await call(putRegistration, {
        method: "PUT",
        headers: { ...json, ...headers },
        body: '{"open":false}',
      });
      expect(response.status).toBe(403);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(
        /^cross-origin request refused/,
      );
    }
    expect(await isRegistrationOpen()).toBe(true);
    const accounts = await db().account.count();
    const issued = await call(issue, {
      method: "POST",
      headers: { ...json, origin: "https://evil.example" },
      body: '{"accountName":"planted"}',
    });
    expect(issued.status).toBe(403);
    expect(await db().account.count()).toBe(accounts);
    // reading is refused too: a page of another site learns nothing through the operator's cookie
    expect((await call(getRegistration, { headers: { "sec-fetch-site": "cross-site" } })).status).toBe(403);
  });

  it("refuses bodies a cross-site form can send without a preflight: text/plain, form encodings", async () => {
    for (const type of [
      "text/plain",
      "text/plain;charset=UTF-8",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
    ]) {
      const response = await call(putRegistration, {
        method: "PUT",
        headers: { "content-type": type },
        body: '{"open":false}',
      });
      expect(response.status).toBe(415);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("unsupported_media_type");
    }
    expect(await isRegistrationOpen()).toBe(true);
  });

  it("answers 401 without a session, or with one the arena did not sign", async () => {
    expect((await call(getRegistration, { cookie: null })).status).toBe(401);
    const forged = await encode({ token: { email: EMAIL, role: "admin" }, secret: "someone-elses-secret-value" });
    expect((await call(getRegistration, { cookie: `next-auth.session-token=${forged}` })).status).toBe(401);
    const participant = await encode({ token: { email: "someone@else.test" }, secret: SECRET });
    expect((await call(getRegistration, { cookie: `next-auth.session-token=${participant}` })).status).toBe(401);
  });
});
