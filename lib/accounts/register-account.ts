import { z } from "zod";
import { db } from "../db/client";
import { AppError } from "../http/app-error";
import { isRegistrationOpen } from "../settings/registration";
import { type IssuedToken, issueToken, issueTokenInput } from "../tokens/issue-token";

export const registerBody = z.object({ name: issueTokenInput.shape.accountName }).strict();

/** Self-registration while the operators keep it open: a new participant account and its token, shown once. */
export async function registerAccount(body: unknown): Promise<IssuedToken> {
  if (!(await isRegistrationOpen())) {
    throw new AppError({ code: "registration_closed", message: "registration is closed: accounts are by invitation" });
  }
  const { name } = registerBody.parse(body);
  const existing = await db().account.findUnique({ where: { name } });
  if (existing) throw new AppError({ code: "conflict", message: `name: an account named "${name}" exists` });
  return issueToken({ accountName: name, kind: "participant" });
}
