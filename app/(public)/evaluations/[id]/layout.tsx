import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { evaluationExists } from "@/lib/board/evaluation-exists";

export const dynamic = "force-dynamic";

/**
 * Checked here, above the page's loading state: once that streams, the answer's status is sent, so an unknown id
 * found only by the page would be a 200. Here it is a 404 with the small not-found page and none of the charts.
 */
export default async function EvaluationLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ id: string }>;
}) {
  const { id } = await params;
  if (!(await evaluationExists(id))) notFound();
  return children;
}
