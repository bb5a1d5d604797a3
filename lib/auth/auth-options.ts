import { createHash, timingSafeEqual } from "node:crypto";
import type { NextAuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { env } from "../env";

function sameSecret(a: string, b: string): boolean {
  const x = createHash("sha256").update(a).digest();
  const y = createHash("sha256").update(b).digest();
  return timingSafeEqual(x, y);
}

/**
 * Admins sign in to the web app with next-auth. The embedded default's provider checks the
 * credentials from the environment; production swaps it for an OAuth provider here.
 */
export function authOptions(): NextAuthOptions {
  const { ADMIN_EMAIL, ADMIN_PASSWORD, NEXTAUTH_SECRET } = env();
  return {
    secret: NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: 8 * 3600 },
    pages: { signIn: "/admin/sign-in" },
    providers: [
      CredentialsProvider({
        name: "Operator credentials",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          if (!ADMIN_PASSWORD || !credentials?.email || !credentials.password) return null;
          const ok =
            sameSecret(credentials.email.toLowerCase(), ADMIN_EMAIL.toLowerCase()) &&
            sameSecret(credentials.password, ADMIN_PASSWORD);
          return ok ? { id: ADMIN_EMAIL, email: ADMIN_EMAIL, name: "Arena operator" } : null;
        },
      }),
    ],
    callbacks: {
      jwt({ token, user }) {
        if (user?.email) token.role = "admin";
        return token;
      },
      session({ session, token }) {
        return { ...session, role: token.role === "admin" ? "admin" : undefined };
      },
    },
  };
}
