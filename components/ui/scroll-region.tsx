import type { ReactNode } from "react";

/**
 * A region that scrolls when its content is larger than its box (sideways, or both ways with `scroll="both"`). It
 * takes focus, so a keyboard user can scroll it with the arrow keys (axe's scrollable-region-focusable), and is a
 * named region for screen readers (`label`).
 */
export function ScrollRegion({
  label,
  className,
  scroll = "x",
  children,
}: {
  label: string;
  className?: string;
  scroll?: "x" | "both";
  children: ReactNode;
}) {
  const overflow = scroll === "x" ? "overflow-x-auto" : "overflow-auto";
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so keyboard users can scroll it.
    <section aria-label={label} tabIndex={0} className={className ? `${className} ${overflow}` : overflow}>
      {children}
    </section>
  );
}
