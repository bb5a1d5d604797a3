import { headers as requestHeaders } from "next/headers";
import { getServerSession } from "next-auth";
import { db } from "../db/client";
import { env } from "../env";
import { AppError } from "../http/app-error";
import { assertSameOrigin } from "../http/same-origin";
import { authOptions } from "./auth-options";

export interface AdminCaller {
  email: string;
  accountId: string | null;
}

type Session = { role?: string; user?: { email?: string | null } } | null;

async function toAdmin(session: Session): Promise<AdminCaller | null> {
  if (session?.role !== "admin" || !session.user?.email) return null;
  const account = await db().account.findUnique({ where: { email: env().ADMIN_EMAIL } });
  return { email: session.user.email, accountId: account?.id ?? null };
}

/** The signed-in operator, or null (pages: the session from the request Next is rendering). */
export async function currentAdmin(): Promise<AdminCaller | null> {
  return toAdmin((await getServerSession(authOptions())) as Session);
}

/** Server actions: the operator, on a request of the arena's own pages only (Origin and Sec-Fetch-Site checked). */
export async function requireAdmin(): Promise<AdminCaller> {
  assertSameOrigin(new Headers(await requestHeaders()));
  const admin = await currentAdmin();
  if (!admin) throw new AppError({ code: "unauthorized", message: "sign in as an operator first" });
  return admin;
}

/** The cookies of a request, by name (the session cookie may be split into `.0`, `.1`, … chunks). */
function parseCookies(header: string | null): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const raw = part.slice(eq + 1).trim();
    try {
      cookies[name] = decodeURIComponent(raw);
    } catch {
      cookies[name] = raw;
    }
  }
  return cookies;
}

/**
 * The operators' JSON API: the operator whose next-auth session cookie this request carries, read by next-auth's own
 * session handler from the request itself (not from Next's request scope), or null.
 */
export async function adminFromRequest(request: Request): Promise<AdminCaller | null> {
  const req = { headers: Object.fromEntries(request.headers), cookies: parseCookies(request.headers.get("cookie")) };
  // The session is read, never renewed, here: a renewed cookie would go nowhere, and the pages renew it.
  const res = { getHeader: () => undefined, setHeader: () => undefined, setCookie: () => undefined };
  const session = (await getServerSession(req as never, res as never, authOptions())) as Session;
  return toAdmin(session);
}
