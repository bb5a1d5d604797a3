import { db } from "../db/client";
import { AppError } from "../http/app-error";

/** Revokes a token; revoking twice keeps the first revocation time. */
export async function revokeToken(tokenId: string): Promise<{ id: string; revokedAt: Date }> {
  const token = await db().apiToken.findUnique({ where: { id: tokenId } });
  if (!token) throw new AppError({ code: "not_found", message: `token ${tokenId} not found` });
  if (token.revokedAt) return { id: token.id, revokedAt: token.revokedAt };
  const updated = await db().apiToken.update({ where: { id: tokenId }, data: { revokedAt: new Date() } });
  return { id: updated.id, revokedAt: updated.revokedAt! };
}
