/** One radio button a choice, each labelled with the choice itself; the group's fieldset and legend are the caller's. */
export function RadioOptions<T extends string>({
  name,
  options,
  value,
  onChange,
}: {
  name: string;
  options: readonly T[];
  value: T;
  onChange: (choice: T) => void;
}) {
  return options.map((o) => (
    <label key={o} className="inline-flex items-center gap-1">
      <input type="radio" name={name} checked={value === o} onChange={() => onChange(o)} />
      {o}
    </label>
  ));
}
