import { z } from "zod";

const optionalUrl = (name: string, protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((value) => (value?.trim() ? value.trim() : undefined))
    .refine((value) => value === undefined || protocols.some((p) => value.startsWith(p)), {
      message: `${name} must start with ${protocols.join(" or ")}`,
    });

const opsEnvSchema = z.object({
  DATABASE_URL: optionalUrl("DATABASE_URL", ["postgresql://", "postgres://"]),
  REDIS_URL: optionalUrl("REDIS_URL", ["redis://", "rediss://"]),
  /** Used when they answer, else private services are started (.ci/run sets them to the host's defaults). */
  ARENA_TRY_DATABASE_URL: optionalUrl("ARENA_TRY_DATABASE_URL", ["postgresql://", "postgres://"]),
  ARENA_TRY_REDIS_URL: optionalUrl("ARENA_TRY_REDIS_URL", ["redis://", "rediss://"]),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Where the embedded services, secrets and data live (gitignored). */
  ARENA_STATE_DIR: z.string().default(".arena"),
  NEXTAUTH_SECRET: z.string().min(16).optional(),
  NEXTAUTH_URL: z.string().url().optional(),
  ADMIN_EMAIL: z.string().email().default("admin@arena.local"),
  ADMIN_PASSWORD: z.string().min(8).optional(),
  CI: z.string().optional(),
});

export type OpsEnv = z.infer<typeof opsEnvSchema>;

let parsed: OpsEnv | undefined;

/** The environment of the ops tools (arena start, test runner, migrations), parsed once. */
export function opsEnv(): OpsEnv {
  if (!parsed) {
    const result = opsEnvSchema.safeParse(process.env);
    if (!result.success) {
      const problems = result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
      throw new Error(`invalid environment: ${problems}`);
    }
    parsed = result.data;
  }
  return parsed;
}
