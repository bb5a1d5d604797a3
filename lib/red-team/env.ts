import { z } from "zod";

const schema = z.object({
  PATH: z.string().min(1).default("/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin"),
  HOME: z.string().min(1).default("/root"),
});

export type RedTeamEnv = z.infer<typeof schema>;

/** What the matrix passes on to each pod agent it starts: nothing else of the caller's environment leaks in. */
export function redTeamEnv(source: Record<string, string | undefined>): RedTeamEnv {
  const result = schema.safeParse(source);
  if (!result.success) {
    throw new Error(
      `invalid red-team environment: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  return result.data;
}
