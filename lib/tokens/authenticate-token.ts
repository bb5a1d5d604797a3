import { db } from "../db/client";
import { AppError } from "../http/app-error";
import type { AccountKind } from "../protocol";
import { hashToken, sameHash, TOKEN_PREFIX } from "./token-format";

export interface Caller {
  accountId: string;
  accountName: string;
  kind: AccountKind;
  tokenId: string;
}

/** Resolves `Authorization: Bearer <token>` to its account; says which of missing, malformed, unknown or revoked it is. */
export async function authenticateToken(authorization: string | null): Promise<Caller> {
  if (!authorization) {
    throw new AppError({ code: "unauthorized", message: "missing token: send Authorization: Bearer <token>" });
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) {
    throw new AppError({ code: "unauthorized", message: "malformed Authorization header: expected Bearer <token>" });
  }
  const token = match[1]!;
  if (!token.startsWith(TOKEN_PREFIX)) {
    throw new AppError({ code: "unauthorized", message: `wrong token: arena tokens start with ${TOKEN_PREFIX}` });
  }
  const hash = hashToken(token);
  const row = await db().apiToken.findUnique({ where: { hash }, include: { account: true } });
  if (!row || !sameHash(row.hash, hash)) {
    throw new AppError({ code: "unauthorized", message: "wrong token: no account has this token" });
  }
  if (row.revokedAt) {
    throw new AppError({ code: "unauthorized", message: "revoked token: ask the operators for a new one" });
  }
  if (row.account.disabledAt) {
    throw new AppError({ code: "unauthorized", message: "this token's account is disabled" });
  }
  await db().apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } });
  return { accountId: row.accountId, accountName: row.account.name, kind: row.account.kind, tokenId: row.id };
}
