import { getServerSession } from "next-auth";
import { db } from "../db/client";
import { env } from "../env";
import { AppError } from "../http/app-error";
import { authOptions } from "./auth-options";

export interface AdminCaller {
  email: string;
  accountId: string | null;
}

/** The signed-in operator, or null. */
export async function currentAdmin(): Promise<AdminCaller | null> {
  const session = (await getServerSession(authOptions())) as { role?: string; user?: { email?: string | null } } | null;
  if (session?.role !== "admin" || !session.user?.email) return null;
  const account = await db().account.findUnique({ where: { email: env().ADMIN_EMAIL } });
  return { email: session.user.email, accountId: account?.id ?? null };
}

export async function requireAdmin(): Promise<AdminCaller> {
  const admin = await currentAdmin();
  if (!admin) throw new AppError({ code: "unauthorized", message: "sign in as an operator first" });
  return admin;
}
