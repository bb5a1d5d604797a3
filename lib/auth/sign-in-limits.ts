import { NextRequest } from "next/server";
import { env } from "../env";
import { type AppError, isAppError } from "../http/app-error";
import { clientAddress } from "../http/client-address";
import { errorResponse } from "../http/error-response";
import { consume, limits, refund } from "../http/rate-limit";
import { assertDeclaredLength, readBodyBytes } from "../http/read-body";
import { assertSafeParams } from "../http/unsafe-strings";

type NextAuthContext = { params: Promise<{ nextauth?: string[] }> };
type NextAuthHandler = (request: Request, context: NextAuthContext) => Promise<Response>;

/** The error next-auth's client reports for a sign-in refused for its rate (`signIn()` returns it as `error`). */
export const SIGN_IN_RATE_LIMITED = "RateLimited";

/** The key every failed operator sign-in also counts under, whatever its address. */
const ALL_ADDRESSES = "all";

/** next-auth signed someone in: it set a session cookie with a value (signing out sets an empty one). */
export function setsSession(response: Response): boolean {
  return response.headers
    .getSetCookie()
    .some((cookie) => /^(__Secure-)?next-auth\.session-token(\.\d+)?=[^;\s]/.test(cookie));
}

/**
 * A refused sign-in in the API's error shape, with the `url` next-auth's client reads its outcome from (it parses the
 * URL's `error`), so the sign-in form says why instead of failing on a body it cannot read.
 */
function refusedSignIn(error: AppError, requestUrl: string): Response {
  const response = errorResponse(error);
  const url = new URL("/api/auth/error", requestUrl);
  url.searchParams.set("error", SIGN_IN_RATE_LIMITED);
  return Response.json(
    { error: { code: error.code, message: error.message }, url: url.toString() },
    { status: response.status, headers: response.headers },
  );
}

/**
 * next-auth's routes behind the arena's checks: the body read within MAX_BODY_BYTES before next-auth parses it, the
 * address's request rate, and on the credentials callback (the only way to sign in) a point counted per address and
 * for all addresses together before the password is checked, so concurrent guesses cannot slip past the count, and
 * given back when the sign-in succeeded. Past either limit: 429 with Retry-After, and the password is not checked.
 */
export function withSignInLimits(handler: NextAuthHandler) {
  return async (request: Request, context: NextAuthContext): Promise<Response> => {
    try {
      const maxBytes = env().MAX_BODY_BYTES;
      assertDeclaredLength(request, maxBytes);
      const params = (await context.params) ?? {};
      assertSafeParams(params as Record<string, string[]>);
      const address = clientAddress(request);
      await consume(limits.apiPerAddress(), address);
      let forwarded = request;
      if (request.method !== "GET" && request.method !== "HEAD") {
        const body = await readBodyBytes(request, maxBytes);
        forwarded = new NextRequest(request.url, { method: request.method, headers: request.headers, body });
      }
      const signingIn = request.method === "POST" && params.nextauth?.[0] === "callback";
      if (signingIn) {
        try {
          await consume(limits.signInPerAddress(), address);
          await consume(limits.signInAll(), ALL_ADDRESSES);
        } catch (error) {
          if (isAppError(error)) return refusedSignIn(error, request.url);
          throw error;
        }
      }
      const response = await handler(forwarded, context);
      if (signingIn && setsSession(response)) {
        await refund(limits.signInPerAddress(), address);
        await refund(limits.signInAll(), ALL_ADDRESSES);
      }
      return response;
    } catch (error) {
      return errorResponse(error);
    }
  };
}
