"use client";

import { type ReactNode, useId, useRef } from "react";

const TONE = {
  primary: "rounded bg-blue-700 px-4 py-2 font-medium text-white hover:bg-blue-800 disabled:opacity-60",
  danger: "rounded bg-red-800 px-4 py-2 font-medium text-white hover:bg-red-900 disabled:opacity-60",
  "danger-outline": "rounded border border-red-700 px-2 py-1 text-red-800 hover:bg-red-50 disabled:opacity-60",
} as const;

/**
 * A submit button for an action that cannot be undone: it first checks the form's fields, then asks in a modal
 * dialog (focus moves to its first button, Cancel; Escape or Cancel backs out and focus returns to the trigger) and
 * submits the form only on the explicit `confirmLabel`.
 */
export function ConfirmSubmit({
  children,
  title,
  description,
  confirmLabel,
  tone = "danger",
  pending = false,
  pendingLabel,
  ariaLabel,
}: {
  children: ReactNode;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  tone?: keyof typeof TONE;
  pending?: boolean;
  pendingLabel?: ReactNode;
  /** The trigger's accessible name, where its text alone does not say what it acts on. */
  ariaLabel?: string;
}) {
  const id = useId();
  const trigger = useRef<HTMLButtonElement>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button
        ref={trigger}
        type="button"
        aria-haspopup="dialog"
        aria-label={ariaLabel}
        disabled={pending}
        className={TONE[tone]}
        onClick={() => {
          if (trigger.current?.form?.reportValidity() === false) return;
          dialog.current?.showModal();
        }}
      >
        {pending && pendingLabel !== undefined ? pendingLabel : children}
      </button>
      <dialog
        ref={dialog}
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-text`}
        className="m-auto max-w-md rounded border border-slate-300 p-5 text-left text-base text-slate-900 shadow-lg backdrop:bg-slate-900/40"
      >
        <h2 id={`${id}-title`} className="text-lg font-semibold">
          {title}
        </h2>
        <div id={`${id}-text`} className="mt-2 text-sm text-slate-700">
          {description}
        </div>
        <div className="mt-4 flex flex-wrap justify-end gap-3">
          <button
            type="button"
            className="rounded border border-slate-500 px-3 py-1.5 font-medium hover:bg-slate-50"
            onClick={() => dialog.current?.close()}
          >
            Cancel
          </button>
          <button
            type="button"
            className={tone === "primary" ? TONE.primary : TONE.danger}
            onClick={() => {
              const form = trigger.current?.form;
              dialog.current?.close();
              form?.requestSubmit();
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}
