import { z } from "zod";
import { db } from "../db/client";
import { AppError } from "../http/app-error";
import { isRegistrationOpen } from "../settings/registration";
import { type IssuedToken, issueTokenInput } from "../tokens/issue-token";
import { generateToken } from "../tokens/token-format";

export const registerBody = z.object({ name: issueTokenInput.shape.accountName }).strict();

/** Refuses while the operators keep registration closed; checked before a registration's body is read. */
export async function assertRegistrationOpen(): Promise<void> {
  if (!(await isRegistrationOpen())) {
    throw new AppError({ code: "registration_closed", message: "registration is closed: accounts are by invitation" });
  }
}

/** A unique index refused the row (Prisma's P2002, as the pg adapter reports PostgreSQL's 23505). */
function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "P2002";
}

/**
 * Self-registration while the operators keep it open: a new participant account and its one token, shown once.
 * The account is created, never reused: the name's unique index decides between concurrent registrations of one
 * name, so exactly one gets an account and a token and every other a 409, and an existing account never gains a
 * token through registration.
 */
export async function registerAccount(body: unknown): Promise<IssuedToken> {
  await assertRegistrationOpen();
  const { name } = registerBody.parse(body);
  const conflict = () => new AppError({ code: "conflict", message: `name: an account named "${name}" exists` });
  if (await db().account.findUnique({ where: { name }, select: { id: true } })) throw conflict();
  const { token, hash, prefix } = generateToken();
  try {
    return await db().$transaction(async (tx) => {
      const account = await tx.account.create({ data: { name, kind: "participant" } });
      const row = await tx.apiToken.create({ data: { accountId: account.id, hash, prefix, label: "self-registered" } });
      return { token, tokenId: row.id, prefix, accountId: account.id, accountName: account.name };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict();
    throw error;
  }
}
