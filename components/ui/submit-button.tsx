import type { ReactNode } from "react";

const TONE = {
  primary: "rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:opacity-60",
  danger: "rounded bg-red-800 px-4 py-2 font-medium text-white hover:bg-red-900 disabled:opacity-60",
} as const;

/** A form's submit button: disabled while the form is pending (or `disabled`), saying so with `pendingLabel`. */
export function SubmitButton({
  pending = false,
  pendingLabel,
  disabled = false,
  tone = "primary",
  children,
}: {
  pending?: boolean;
  pendingLabel?: ReactNode;
  disabled?: boolean;
  tone?: keyof typeof TONE;
  children: ReactNode;
}) {
  return (
    <button type="submit" disabled={pending || disabled} className={TONE[tone]}>
      {pending && pendingLabel !== undefined ? pendingLabel : children}
    </button>
  );
}
