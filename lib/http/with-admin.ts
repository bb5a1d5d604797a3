import { type AdminCaller, adminFromRequest } from "../auth/admin-session";
import { env } from "../env";
import { AppError } from "./app-error";
import { clientAddress } from "./client-address";
import { errorResponse } from "./error-response";
import { consume, limits } from "./rate-limit";
import { assertDeclaredLength, readJsonBody } from "./read-body";
import { assertJsonContentType, assertSameOrigin } from "./same-origin";
import { assertSafeParams } from "./unsafe-strings";

type Params = Record<string, string | string[]>;

/**
 * The operators' JSON API: refused to pages of other sites (Origin, Sec-Fetch-Site) and to bodies a cross-site form
 * can send (anything but application/json), before the session cookie is even read; then a next-auth admin session,
 * and the API's error mapping.
 */
export function withAdmin<P extends Params = Params>(
  handler: (
    request: Request,
    context: { admin: AdminCaller; params: P; json(): Promise<unknown> },
  ) => Promise<Response>,
) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const maxBytes = env().MAX_BODY_BYTES;
      assertDeclaredLength(request, maxBytes);
      assertSameOrigin(request.headers);
      assertJsonContentType(request);
      const params = ((await context?.params) ?? {}) as P;
      assertSafeParams(params);
      await consume(limits.apiPerAddress(), clientAddress(request));
      const admin = await adminFromRequest(request);
      if (!admin) throw new AppError({ code: "unauthorized", message: "sign in as an operator first" });
      return await handler(request, { admin, params, json: () => readJsonBody(request, maxBytes) });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
