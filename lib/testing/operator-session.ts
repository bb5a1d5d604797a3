import { encode } from "next-auth/jwt";
import { type ArenaTestContext, setupArenaTestContext } from "./arena-test-context";

/** The operators' settings a test arena runs with, and the origin its pages are served from. */
export const OPERATOR = {
  secret: "the-operators-session-secret",
  email: "operator@arena.test",
  password: "operator-password",
  origin: "http://arena.test",
} as const;

/**
 * A test arena with an operator configured, and the session cookie's value next-auth sets once that operator signs
 * in (its JWT callback adds the role): `next-auth.session-token=<session>` on a request is the operator's.
 */
export async function setupOperatorContext(): Promise<{ ctx: ArenaTestContext; session: string }> {
  const ctx = await setupArenaTestContext({
    NEXTAUTH_SECRET: OPERATOR.secret,
    ADMIN_EMAIL: OPERATOR.email,
    ADMIN_PASSWORD: OPERATOR.password,
    ARENA_PUBLIC_URL: OPERATOR.origin,
  });
  const session = await encode({
    token: { email: OPERATOR.email, name: "Arena operator", sub: OPERATOR.email, role: "admin" },
    secret: OPERATOR.secret,
  });
  return { ctx, session };
}
