import { z } from "zod";
import { db } from "../db/client";
import { AppError } from "../http/app-error";
import { unsafeStringProblem } from "../http/unsafe-strings";
import { ACCOUNT_KINDS } from "../protocol";
import { generateToken } from "./token-format";

export const issueTokenInput = z
  .object({
    accountName: z
      .string()
      .trim()
      .min(2, "must be at least 2 characters")
      .max(60, "must be at most 60 characters")
      .regex(/^[\p{L}\p{N} ._\-()]+$/u, "may hold letters, digits, spaces and . _ - ( ) only"),
    kind: z.enum(ACCOUNT_KINDS).default("participant"),
    label: z
      .string()
      .trim()
      .max(80)
      .superRefine((value, ctx) => {
        // the admin page's form posts it as typed: PostgreSQL can store neither a NUL nor a lone surrogate
        const problem = unsafeStringProblem(value);
        if (problem) ctx.addIssue({ code: "custom", message: problem });
      })
      .optional(),
  })
  // a field it does not know is a mistake the caller should hear about, not a silent drop
  .strict();
export type IssueTokenInput = z.input<typeof issueTokenInput>;

export interface IssuedToken {
  token: string;
  tokenId: string;
  prefix: string;
  accountId: string;
  accountName: string;
}

/**
 * Issues a token for a named account, creating the account if it is new.
 * The plaintext is returned once and never stored: only its hash and prefix are kept.
 */
export async function issueToken(input: IssueTokenInput, issuedById?: string): Promise<IssuedToken> {
  const { accountName, kind, label } = issueTokenInput.parse(input);
  const { token, hash, prefix } = generateToken();
  const upsert = () =>
    db().account.upsert({ where: { name: accountName }, update: {}, create: { name: accountName, kind } });
  // Two upserts of a new name race to insert it; the one the unique index refuses finds the other's row.
  const account = await upsert().catch((error: unknown) => {
    if ((error as { code?: unknown } | null)?.code === "P2002") return upsert();
    throw error;
  });
  if (account.disabledAt) {
    throw new AppError({ code: "conflict", message: `account "${accountName}" is disabled` });
  }
  const row = await db().apiToken.create({
    data: { accountId: account.id, hash, prefix, label: label ?? null, issuedById: issuedById ?? null },
  });
  return { token, tokenId: row.id, prefix, accountId: account.id, accountName: account.name };
}
