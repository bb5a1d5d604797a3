import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { isRegistrationOpen } from "@/lib/settings/registration";
import { RegisterForm } from "./register-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Register" };

export default async function RegisterPage() {
  if (!(await isRegistrationOpen())) notFound();
  return (
    <div className="max-w-xl space-y-4">
      <h1 className="text-2xl font-semibold">Get an arena token</h1>
      <p className="text-slate-700">
        Registration is open. Name your account (the name the board shows beside your entries) and you get a token for
        the API and the <a href="/submit">submit page</a>.
      </p>
      <RegisterForm />
    </div>
  );
}
