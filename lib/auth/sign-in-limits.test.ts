import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ArenaTestContext, setupArenaTestContext } from "../testing/arena-test-context";
import { authOptions } from "./auth-options";
import { SIGN_IN_RATE_LIMITED, setsSession, withSignInLimits } from "./sign-in-limits";

const EMAIL = "operator@arena.test";
const PASSWORD = "correct horse battery";

let ctx: ArenaTestContext;

beforeAll(async () => {
  ctx = await setupArenaTestContext({
    ADMIN_EMAIL: EMAIL,
    ADMIN_PASSWORD: PASSWORD,
    NEXTAUTH_SECRET: "a-test-secret-of-enough-length",
    // each request below names its caller as one trusted proxy would
    TRUSTED_PROXY_HOPS: "1",
    SIGN_IN_FAILURES_PER_ADDRESS: "3",
    SIGN_IN_FAILURES_PER_WINDOW: "5",
    SIGN_IN_WINDOW_SECONDS: "900",
  });
});
afterAll(async () => {
  await ctx.teardown();
});

/** The credentials provider's own check, as next-auth calls it. */
function authorize(email: string, password: string) {
  const provider = authOptions().providers[0] as unknown as {
    options: { authorize(credentials: Record<string, string>, req: unknown): Promise<unknown> };
  };
  return provider.options.authorize({ email, password }, {});
}

/**
 * Stands in for next-auth's route as it answers the credentials callback with `json: true` (its sign-in form's
 * request): the password checked by the real provider, then 401 and the error page's URL, or the session cookie.
 */
let checked = 0;
const nextAuthStandIn = async (request: Request) => {
  if (request.method !== "POST") return Response.json({});
  checked += 1;
  const form = new URLSearchParams(await request.text());
  const user = await authorize(form.get("email") ?? "", form.get("password") ?? "");
  if (!user) {
    return Response.json(
      { url: "http://arena.test/api/auth/error?error=CredentialsSignin&provider=credentials" },
      { status: 401 },
    );
  }
  return Response.json(
    { url: "http://arena.test/admin" },
    { headers: { "set-cookie": "next-auth.session-token=eyJ.session; Path=/; HttpOnly; SameSite=Lax" } },
  );
};
const handler = withSignInLimits(nextAuthStandIn);

function signIn(from: string, password: string, body?: string) {
  const request = new Request("http://arena.test/api/auth/callback/credentials", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": from },
    body: body ?? new URLSearchParams({ email: EMAIL, password, csrfToken: "t", json: "true" }).toString(),
  });
  return handler(request, { params: Promise.resolve({ nextauth: ["callback", "credentials"] }) });
}

describe("the operator's sign-in", () => {
  it("checks the password with the credentials provider", async () => {
    expect(await authorize(EMAIL, "wrong")).toBeNull();
    expect(await authorize(EMAIL.toUpperCase(), PASSWORD)).toMatchObject({ email: EMAIL });
  });

  it("refuses an address past its attempts with 429 and Retry-After, without checking the password", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) statuses.push((await signIn("198.51.100.1", `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401]);
    expect(checked).toBe(3);
    for (const password of ["guess-4", PASSWORD]) {
      const refused = await signIn("198.51.100.1", password);
      expect(refused.status).toBe(429);
      const seconds = Number(refused.headers.get("retry-after"));
      expect(seconds).toBeGreaterThanOrEqual(1);
      expect(seconds).toBeLessThanOrEqual(900);
      const body = (await refused.json()) as { error: { message: string }; url: string };
      expect(body.error.message).toMatch(/^too many sign-in attempts from this address; try again in \d+ s$/);
      // next-auth's client reads the outcome from the URL's error (signIn() returns it), as from its own refusals
      expect(new URL(body.url).searchParams.get("error")).toBe(SIGN_IN_RATE_LIMITED);
    }
    expect(checked).toBe(3);
    // the address's other next-auth routes (the session, the CSRF token) are not sign-ins
    const session = await handler(
      new Request("http://arena.test/api/auth/session", { headers: { "x-forwarded-for": "198.51.100.1" } }),
      { params: Promise.resolve({ nextauth: ["session"] }) },
    );
    expect(session.status).toBe(200);
  });

  it("does not count a sign-in that succeeded", async () => {
    const ok = await signIn("198.51.100.2", PASSWORD);
    expect(ok.status).toBe(200);
    expect(setsSession(ok)).toBe(true);
    for (let i = 0; i < 3; i++) expect((await signIn("198.51.100.2", PASSWORD)).status).toBe(200);
  });

  it("caps failed sign-ins from all addresses together: a guesser on many addresses gets 429 too", async () => {
    // three failures above, and two more from fresh addresses, fill the window's five
    expect((await signIn("198.51.100.3", "spread-1")).status).toBe(401);
    expect((await signIn("198.51.100.4", "spread-2")).status).toBe(401);
    const refused = await signIn("198.51.100.5", "spread-3");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /^too many failed sign-ins to the operator account/,
    );
  });

  it("refuses a body over the limit before next-auth reads it", async () => {
    const before = checked;
    const response = await signIn("198.51.100.6", PASSWORD, `password=${"x".repeat(70 * 1024)}`);
    expect(response.status).toBe(413);
    expect(checked).toBe(before);
  });
});
