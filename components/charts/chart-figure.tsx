"use client";

import type { ReactElement, ReactNode } from "react";
import { ResponsiveContainer } from "recharts";

/**
 * A chart under its caption. The drawing is an image to screen readers, so `label` must carry its figures in words.
 */
export function ChartFigure({
  caption,
  label,
  height,
  className,
  table,
  children,
}: {
  caption: ReactNode;
  label: string;
  /** An h-* class, or pixels where the chart grows with its rows. */
  height: string | number;
  className?: string;
  /** The chart's figures as a table, shown under it (ChartTable). */
  table?: ReactNode;
  children: ReactElement;
}) {
  return (
    <figure className={className}>
      <figcaption className="mb-2 font-medium">{caption}</figcaption>
      <div
        className={typeof height === "string" ? height : undefined}
        style={typeof height === "number" ? { height } : undefined}
        role="img"
        aria-label={label}
      >
        <ResponsiveContainer width="100%" height="100%">
          {children}
        </ResponsiveContainer>
      </div>
      {table}
    </figure>
  );
}
