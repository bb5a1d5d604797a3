/** A block of commands or a file, as the guide prints them: `data-kind` names what it is for the guide's own test. */
export function CodeBlock({ children, kind, label }: { children: string; kind?: string; label?: string }) {
  return (
    <figure className="mt-3">
      {label ? <figcaption className="text-sm font-medium text-slate-700">{label}</figcaption> : null}
      <pre className="mt-1 overflow-x-auto rounded bg-slate-900 p-4 text-sm text-slate-100" data-kind={kind}>
        <code>{children}</code>
      </pre>
    </figure>
  );
}
