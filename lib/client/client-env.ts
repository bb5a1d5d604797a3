import { z } from "zod";
import { TOKEN_PREFIX } from "../tokens/token-format";
import { ClientError, EXIT } from "./exit-codes";

const schema = z.object({
  SPECULATORARENA_URL: z
    .string()
    .url("must be the arena's address, such as https://speculatorarena.com")
    .default("http://localhost:3000")
    .transform((url) => url.replace(/\/+$/, "")),
  SPECULATORARENA_TOKEN: z.string().trim().min(1).optional(),
  /** What the local kit hands its pod agent, as a pod's image sets them (the vLLM image's PATH and libraries). */
  PATH: z.string().default("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"),
  HOME: z.string().optional(),
  LD_LIBRARY_PATH: z.string().optional(),
});

export interface ClientEnv {
  url: string;
  /** The token, checked only by the commands that send it. */
  token: string | undefined;
  /** The local kit's pass-through for its pod agent. */
  system: { PATH: string; HOME?: string; LD_LIBRARY_PATH?: string };
}

/** The client's environment, parsed once: where the arena is and the account's token. */
export function clientEnv(source: Record<string, string | undefined>): ClientEnv {
  const parsed = schema.safeParse(source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ClientError(EXIT.usage, `${issue.path.join(".")}: ${issue.message}`);
  }
  const { PATH, HOME, LD_LIBRARY_PATH } = parsed.data;
  return {
    url: parsed.data.SPECULATORARENA_URL,
    token: parsed.data.SPECULATORARENA_TOKEN,
    system: { PATH, ...(HOME ? { HOME } : {}), ...(LD_LIBRARY_PATH ? { LD_LIBRARY_PATH } : {}) },
  };
}

/** The token a command sends, refused before sending when it is absent or not an arena token. */
export function requireToken(env: ClientEnv): string {
  if (!env.token) {
    throw new ClientError(
      EXIT.usage,
      `SPECULATORARENA_TOKEN is not set: export SPECULATORARENA_TOKEN=${TOKEN_PREFIX}... (the token the operators gave you; see ${env.url}/guide#token)`,
    );
  }
  if (!env.token.startsWith(TOKEN_PREFIX)) {
    throw new ClientError(
      EXIT.usage,
      `SPECULATORARENA_TOKEN is not an arena token: arena tokens start with ${TOKEN_PREFIX} (see ${env.url}/guide#token)`,
    );
  }
  return env.token;
}
