import { env } from "../env";
import { pingRedis } from "../queue/connection";
import { authenticateToken, type Caller } from "../tokens/authenticate-token";
import { AppError } from "./app-error";
import { clientAddress } from "./client-address";
import { errorResponse, unavailable } from "./error-response";
import { consume, limits } from "./rate-limit";
import { assertDeclaredLength, readJsonBody } from "./read-body";
import { assertSafeParams } from "./unsafe-strings";

type Params = Record<string, string | string[]>;

export interface RouteOptions {
  /** The most bytes this route's body may have (MAX_BODY_BYTES when not given). */
  maxBodyBytes?: () => number;
  /**
   * What the route cannot do without besides PostgreSQL: "queue" (Redis) for a route that queues work. Checked
   * before the handler runs: while it cannot be reached the route answers 503 at once, having done nothing.
   */
  needs?: readonly "queue"[];
}

interface RequestContext<P extends Params> {
  params: P;
  /** The caller's address as the limits key it (lib/http/client-address.ts). */
  address: string;
  /** The body as JSON, read within the route's size limit, every string checked. */
  json(): Promise<unknown>;
}

type Handler<P extends Params> = (
  request: Request,
  context: RequestContext<P> & { caller: Caller },
) => Promise<Response>;

/**
 * What every API route checks before its own work, cheapest first: the declared body size (413, before a byte is
 * read), the path parameters (400 for a NUL or a lone surrogate), and the address's request rate (429).
 */
async function admit<P extends Params>(
  request: Request,
  context: { params: Promise<P> },
  options: RouteOptions,
): Promise<RequestContext<P>> {
  const maxBytes = options.maxBodyBytes?.() ?? env().MAX_BODY_BYTES;
  assertDeclaredLength(request, maxBytes);
  const params = ((await context?.params) ?? {}) as P;
  assertSafeParams(params);
  const address = clientAddress(request);
  await consume(limits.apiPerAddress(), address);
  return { params, address, json: () => readJsonBody(request, maxBytes) };
}

/**
 * The token surface: authenticates the bearer token and maps every error. A failed authentication counts against
 * its address, which past AUTH_FAILURES_PER_MINUTE gets 429 instead of 401; a valid token is still served from that
 * address (one user's mistakes never lock out another behind the same NAT), within its own per-token limit.
 */
export function withToken<P extends Params = Params>(handler: Handler<P>, options: RouteOptions = {}) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const admitted = await admit(request, context, options);
      let caller: Caller;
      try {
        caller = await authenticateToken(request.headers.get("authorization"));
      } catch (error) {
        if (error instanceof AppError && error.code === "unauthorized") {
          await consume(limits.authFailures(), admitted.address);
        }
        throw error;
      }
      await consume(limits.apiPerToken(), caller.tokenId);
      if (options.needs?.includes("queue")) await pingRedis().catch(() => Promise.reject(unavailable("redis")));
      return await handler(request, { ...admitted, caller });
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Public routes: the same checks and error mapping, without authentication. */
export function withErrors<P extends Params = Params>(
  handler: (request: Request, context: RequestContext<P>) => Promise<Response>,
  options: RouteOptions = {},
) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      return await handler(request, await admit(request, context, options));
    } catch (error) {
      return errorResponse(error);
    }
  };
}

/** Reads a JSON body within MAX_BODY_BYTES, naming the problem when it is not JSON (routes prefer `context.json`). */
export async function readJson(request: Request): Promise<unknown> {
  return readJsonBody(request, env().MAX_BODY_BYTES);
}
