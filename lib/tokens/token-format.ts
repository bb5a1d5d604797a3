import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const TOKEN_PREFIX = "spa_";
const DISPLAY_CHARS = 8;

/** A new token: the plaintext (shown once), its hash (stored) and a short prefix (displayed). */
export function generateToken(): { token: string; hash: string; prefix: string } {
  const token = `${TOKEN_PREFIX}${randomBytes(24).toString("base64url")}`;
  return { token, hash: hashToken(token), prefix: displayPrefix(token) };
}

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

export function displayPrefix(token: string): string {
  return token.slice(0, TOKEN_PREFIX.length + DISPLAY_CHARS);
}

/** Compares two hex digests in constant time. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && timingSafeEqual(x, y);
}
