import type { ReactNode } from "react";

/**
 * A page section named by its h2 (aria-labelledby), so the landmark and the heading always agree. `aside`
 * (a link, say) sits at the heading's end of line.
 */
export function Section({
  id,
  title,
  aside,
  className,
  children,
}: {
  id: string;
  title: ReactNode;
  aside?: ReactNode;
  className?: string;
  children: ReactNode;
}) {
  const heading = (
    <h2 id={id} className="text-xl font-semibold">
      {title}
    </h2>
  );
  return (
    <section aria-labelledby={id} className={className}>
      {aside ? (
        <div className="flex flex-wrap items-baseline justify-between gap-2">
          {heading}
          {aside}
        </div>
      ) : (
        heading
      )}
      {children}
    </section>
  );
}
