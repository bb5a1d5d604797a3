import { db } from "../db/client";
import type { Prisma } from "../db/generated/client";
import { type AccountKind, currentProtocol, SPLITS, type Split } from "../protocol";
import { budgetLimit } from "./budget-limits";

type Tx = Prisma.TransactionClient;

/** Evaluations charged and not refunded. */
export async function usedBudget(accountId: string, taskId: string, split: Split, tx: Tx = db()): Promise<number> {
  const sum = await tx.budgetLedger.aggregate({ where: { accountId, taskId, split }, _sum: { amount: true } });
  return sum._sum.amount ?? 0;
}

export interface BudgetLine {
  taskId: string;
  split: Split;
  limit: number | null;
  used: number;
  remaining: number | null;
}

/** What an account has left, per task and split, as the submit page shows it before sending. */
export async function remainingBudget(accountId: string, kind: AccountKind): Promise<BudgetLine[]> {
  const lines: BudgetLine[] = [];
  for (const taskId of Object.keys(currentProtocol().tasks)) {
    for (const split of SPLITS) {
      const limit = budgetLimit(kind, split);
      const used = await usedBudget(accountId, taskId, split);
      lines.push({ taskId, split, limit, used, remaining: limit === null ? null : Math.max(0, limit - used) });
    }
  }
  return lines;
}
