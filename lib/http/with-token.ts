import { env } from "../env";
import { redis } from "../queue/connection";
import { authenticateToken, type Caller } from "../tokens/authenticate-token";
import { AppError } from "./app-error";
import { clientAddress } from "./client-address";
import { errorResponse } from "./error-response";
import { assertNotLimited, recordAuthFailure } from "./rate-limit";

type Params = Record<string, string | string[]>;
type Handler<P extends Params> = (request: Request, context: { caller: Caller; params: P }) => Promise<Response>;

/** The token surface: authenticates the bearer token, rate-limits failures per address, maps every error. */
export function withToken<P extends Params = Params>(handler: Handler<P>) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const address = clientAddress(request);
      await assertNotLimited(redis(), env().QUEUE_PREFIX, address, env().AUTH_FAILURES_PER_MINUTE);
      let caller: Caller;
      try {
        caller = await authenticateToken(request.headers.get("authorization"));
      } catch (error) {
        if (error instanceof AppError && error.code === "unauthorized")
          await recordAuthFailure(redis(), env().QUEUE_PREFIX, address);
        throw error;
      }
      return await handler(request, { caller, params: await context.params });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Public routes get the same error mapping without authentication. */
export function withErrors<P extends Params = Params>(
  handler: (request: Request, context: { params: P }) => Promise<Response>,
) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      return await handler(request, { params: await context.params });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Reads a JSON body, naming the problem when it is not JSON. */
export async function readJson(request: Request): Promise<unknown> {
  try {
    return await request.json();
  } catch {
    throw new AppError({ code: "invalid_request", message: "body: not valid JSON" });
  }
}
