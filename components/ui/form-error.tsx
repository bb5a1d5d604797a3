import type { ReactNode } from "react";

/** A form's outcome: an alert when it failed (read out at once), a status when it went through. */
export function FormMessage({ ok, id, children }: { ok: boolean; id?: string; children: ReactNode }) {
  return (
    <p id={id} role={ok ? "status" : "alert"} className={ok ? "text-sm text-emerald-800" : "text-sm text-red-800"}>
      {children}
    </p>
  );
}

/** Why the form did not go through; nothing while there is no message. */
export function FormError({ id, message }: { id?: string; message: string | null | undefined }) {
  return message ? (
    <FormMessage ok={false} id={id}>
      {message}
    </FormMessage>
  ) : null;
}
