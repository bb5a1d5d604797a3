import { ScrollRegion } from "@/components/ui/scroll-region";

/** A block of commands or a file, as the guide prints them: `data-kind` names what it is for the guide's own test. */
export function CodeBlock({ children, kind, label }: { children: string; kind?: string; label?: string }) {
  return (
    <figure className="mt-3">
      {label ? <figcaption className="text-sm font-medium text-slate-700">{label}</figcaption> : null}
      <ScrollRegion label={label ?? "Commands"} className="mt-1 rounded bg-slate-900">
        <pre className="p-4 text-sm text-slate-100" data-kind={kind}>
          <code>{children}</code>
        </pre>
      </ScrollRegion>
    </figure>
  );
}
