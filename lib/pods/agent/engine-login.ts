import { userInfo } from "node:os";
import type { EngineIdentity } from "./engine-user";

/** USER and LOGNAME where the engine's uid has no passwd entry (a pod's arbitrary non-root uid). */
export const FALLBACK_LOGIN = "arena-engine";

/** The agent's own login name, or null where its uid has no passwd entry. */
function ownLogin(): string | null {
  try {
    return userInfo().username;
  } catch {
    return null;
  }
}

/**
 * The login name an engine sees in USER and LOGNAME: the engine user's, or the agent's own when engines run
 * as the agent's uid, or a fixed name when that uid has no passwd entry.
 */
export function engineLogin(identity: EngineIdentity, lookupOwn: () => string | null = ownLogin): string {
  if (identity.uid !== null) return identity.name ?? FALLBACK_LOGIN;
  return lookupOwn() ?? FALLBACK_LOGIN;
}
