import { notFound } from "next/navigation";
import type { ReactNode } from "react";
import { isTaskId } from "@/lib/protocol";

/** An unknown task is a 404, decided above the board's loading state (which would send a 200 before it). */
export default async function TaskLayout({
  children,
  params,
}: {
  children: ReactNode;
  params: Promise<{ task: string }>;
}) {
  const { task } = await params;
  if (!isTaskId(task)) notFound();
  return children;
}
