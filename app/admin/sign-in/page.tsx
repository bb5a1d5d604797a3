import type { Metadata } from "next";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Operator sign-in" };

type Props = { searchParams: Promise<{ callbackUrl?: string; error?: string }> };

export default async function SignInPage({ searchParams }: Props) {
  const { callbackUrl, error } = await searchParams;
  const target = callbackUrl?.startsWith("/") && !callbackUrl.startsWith("//") ? callbackUrl : "/admin";
  return (
    <div className="max-w-sm space-y-4">
      <h1 className="text-2xl font-semibold">Operator sign-in</h1>
      <p className="text-sm text-slate-700">
        For the arena&apos;s operators. Participants sign in with their token on <a href="/submit">the submit page</a>.
      </p>
      <SignInForm callbackUrl={target} initialError={error ? "Sign-in failed: check the email and password." : null} />
    </div>
  );
}
