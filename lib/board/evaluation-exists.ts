import { db } from "@/lib/db/client";

/**
 * Whether an evaluation page exists at this id (an evaluation's, or a submission's): read before the page streams,
 * so an unknown address answers 404 and loads nothing of the page it is not.
 */
export async function evaluationExists(id: string): Promise<boolean> {
  const found = await db().evaluation.findFirst({
    where: { OR: [{ id }, { submissionId: id }] },
    select: { id: true },
  });
  return found !== null;
}
