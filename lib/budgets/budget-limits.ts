import { type AccountKind, currentProtocol, type Split } from "../protocol";

/** Evaluations an account may run per task and split; null where it is not limited (references, admins). */
export function budgetLimit(kind: AccountKind, split: Split): number | null {
  const budgets = currentProtocol().budgets;
  if (kind === "participant") return budgets.participant[split];
  if (kind === "study") return budgets.study[split];
  return null;
}
