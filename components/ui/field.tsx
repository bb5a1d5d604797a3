import type { InputHTMLAttributes, ReactNode, SelectHTMLAttributes } from "react";

/** The look every text box and drop-down shares; a field's `className` adds to it. */
const CONTROL = "mt-1 w-full rounded border border-slate-400 px-3 py-2";

const LABEL = {
  base: "block font-medium",
  sm: "block text-sm font-medium",
} as const;

type LabelSize = keyof typeof LABEL;

interface FieldProps {
  /** The control's id, which the label names: the label is how people and tests find the control. */
  id: string;
  label: ReactNode;
  /** "sm" in dense forms (the admin rows, a fieldset's sub-fields). */
  labelSize?: LabelSize;
}

/**
 * A form's fields' common props: `field(key, label)` gives the id `${formId}-${key}` (formId from useId, so unique on
 * the page), the label and the form's label size.
 */
export function formFields(formId: string, labelSize: LabelSize = "base") {
  return (key: string, label: ReactNode): FieldProps => ({ id: `${formId}-${key}`, label, labelSize });
}

function Field({ id, label, labelSize = "base", children }: FieldProps & { children: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className={LABEL[labelSize]}>
        {label}
      </label>
      {children}
    </div>
  );
}

const controlClass = (className: string | undefined) => (className ? `${CONTROL} ${className}` : CONTROL);

type TextFieldProps = FieldProps &
  Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "children"> & {
    /** A line under the box; the input's aria-describedby names it. */
    hint?: { id: string; text: ReactNode };
  };

/** A labelled text input (any `type` a text box takes: text, email, password). */
export function TextField({ id, label, labelSize, className, hint, ...input }: TextFieldProps) {
  return (
    <Field id={id} label={label} labelSize={labelSize}>
      <input
        id={id}
        className={controlClass(className)}
        {...input}
        aria-describedby={hint ? hint.id : input["aria-describedby"]}
      />
      {hint ? (
        <p id={hint.id} className="mt-1 text-xs text-slate-600">
          {hint.text}
        </p>
      ) : null}
    </Field>
  );
}

/** A choice: its value, shown as itself unless it has a label. */
export type SelectOption = string | { value: string; label: ReactNode };

type SelectFieldProps = FieldProps &
  Omit<SelectHTMLAttributes<HTMLSelectElement>, "id" | "children"> & { options: readonly SelectOption[] };

/** A labelled drop-down. */
export function SelectField({ id, label, labelSize, className, options, ...select }: SelectFieldProps) {
  return (
    <Field id={id} label={label} labelSize={labelSize}>
      <select id={id} className={controlClass(className)} {...select}>
        {options.map((o) =>
          typeof o === "string" ? (
            <option key={o} value={o}>
              {o}
            </option>
          ) : (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ),
        )}
      </select>
    </Field>
  );
}
