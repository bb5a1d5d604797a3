import { type AdminCaller, requireAdmin } from "../auth/admin-session";
import { errorResponse } from "./error-response";

type Params = Record<string, string | string[]>;

/** The operators' surface: a next-auth admin session, and the API's error mapping. */
export function withAdmin<P extends Params = Params>(
  handler: (request: Request, context: { admin: AdminCaller; params: P }) => Promise<Response>,
) {
  return async (request: Request, context: { params: Promise<P> }): Promise<Response> => {
    try {
      const admin = await requireAdmin();
      return await handler(request, { admin, params: await context.params });
    } catch (error) {
      return errorResponse(error);
    }
  };
}
