import { db } from "../db/client";

export interface TokenListing {
  id: string;
  prefix: string;
  label: string | null;
  accountId: string;
  accountName: string;
  accountKind: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** Every token by its prefix (never its plaintext), newest first. */
export async function listTokens(): Promise<TokenListing[]> {
  const rows = await db().apiToken.findMany({ orderBy: { createdAt: "desc" }, include: { account: true } });
  return rows.map((r) => ({
    id: r.id,
    prefix: r.prefix,
    label: r.label,
    accountId: r.accountId,
    accountName: r.account.name,
    accountKind: r.account.kind,
    createdAt: r.createdAt,
    lastUsedAt: r.lastUsedAt,
    revokedAt: r.revokedAt,
  }));
}
