import NextAuth from "next-auth";
import { authOptions } from "@/lib/auth/auth-options";
import { withSignInLimits } from "@/lib/auth/sign-in-limits";

const handler = withSignInLimits((request, context) => NextAuth(authOptions())(request, context));

export { handler as GET, handler as POST };
