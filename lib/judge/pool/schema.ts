import { z } from "zod";

export const FAMILIES = ["agent", "chat"] as const;
export type Family = (typeof FAMILIES)[number];

export const toolSchemaZ = z.object({
  type: z.literal("function"),
  function: z.object({
    name: z.string().min(1),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});

/** An app: the system prompt and tool schemas every session of it shares (its shared prefix). */
export const appZ = z.object({
  type: z.literal("app"),
  id: z.string().min(1),
  family: z.enum(FAMILIES),
  systemPrompt: z.string().min(1),
  tools: z.array(toolSchemaZ),
  source: z.string().min(1),
  license: z.string().min(1),
  /** Tokens of the system prompt and of the tools' JSON, with the target's tokenizer (filled by the builder). */
  systemTokens: z.number().int().nonnegative().optional(),
  toolsTokens: z.number().int().nonnegative().optional(),
});

/** A turn the arena sends: a user message or a tool result, then the model replies. */
export const turnZ = z.object({
  role: z.enum(["user", "tool"]),
  content: z.string().min(1),
  /** The reply budget of this turn. */
  maxTokens: z.number().int().positive(),
  /** Seconds between the previous reply's end and this turn (recorded or drawn from the workload card); 0 on the first turn. */
  thinkSeconds: z.number().nonnegative(),
  /** The reply the source recorded after this turn; used for fixed texts and probes, never sent as the model's reply. */
  recordedReply: z.string().optional(),
  tokens: z.number().int().nonnegative().optional(),
});

export const sessionZ = z.object({
  type: z.literal("session"),
  id: z.string().min(1),
  app: z.string().min(1),
  family: z.enum(FAMILIES),
  /** The source dataset's key (see the data card) and the item it came from. */
  source: z.string().min(1),
  sourceItem: z.string().min(1),
  turns: z.array(turnZ).min(1),
});

/** sha256 (hex) of the tokenizer.json that counted something: `TargetTokenizer.fingerprint`. */
export const tokenizerFingerprintZ = z.string().regex(/^[0-9a-f]{64}$/, "must be a sha256 in hex");

/**
 * The pool's provenance, its first line: which tokenizer counted the turns' `tokens` and the apps' `systemTokens`
 * and `toolsTokens`. The judge trusts those counts only for a target whose tokenizer has this fingerprint.
 */
export const metaZ = z.object({
  type: z.literal("meta"),
  countedBy: z.object({
    fingerprint: tokenizerFingerprintZ,
    /** Where the counting tokenizer came from, for people (`Qwen/Qwen3-8B`); never compared. */
    name: z.string().min(1).optional(),
  }),
});

export const poolLineZ = z.discriminatedUnion("type", [metaZ, appZ, sessionZ]);

export type ToolSchemaJson = z.infer<typeof toolSchemaZ>;
export type App = z.infer<typeof appZ>;
export type Turn = z.infer<typeof turnZ>;
export type Session = z.infer<typeof sessionZ>;
export type PoolLine = z.infer<typeof poolLineZ>;
export type PoolMeta = z.infer<typeof metaZ>;

export interface Pool {
  apps: ReadonlyMap<string, App>;
  sessions: readonly Session[];
  /** The tokenizer that counted the pool's token counts; absent, nobody vouches for them and the judge recounts. */
  countedBy?: PoolMeta["countedBy"];
}
