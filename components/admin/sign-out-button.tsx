"use client";

import { signOut } from "next-auth/react";

export function SignOutButton() {
  return (
    <button type="button" className="text-blue-700 underline" onClick={() => void signOut({ callbackUrl: "/" })}>
      Sign out
    </button>
  );
}
