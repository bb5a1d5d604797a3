import { z } from "zod";
import { mountOpSchema } from "./mount-plan";

/**
 * What the local backend tells a pod's agent about its sandbox (`ARENA_SANDBOX`, JSON): the mounts it makes before
 * anything else, whether its network namespace's loopback must be brought up, the cgroup its engines join, the
 * folders of its own it empties between engines, and where it keeps each engine's output for the operators.
 * Absent (the Kubernetes pod, the red-team runner), the agent runs as it always did.
 */
export const podSandboxSchema = z.object({
  mounts: z.array(mountOpSchema),
  loopback: z.boolean(),
  /** The engine cgroup's folders (one per v1 hierarchy, or the one v2 folder); empty without one. */
  cgroups: z.array(z.string()),
  /** The pod's own tmpfs (`/tmp`, `/var/tmp`, `/dev/shm`): everything an engine left there goes between engines. */
  privateDirs: z.array(z.string()),
  /** Where each engine start's output is written, one file per start; null: nowhere. */
  logDir: z.string().nullable(),
});

export type PodSandboxConfig = z.infer<typeof podSandboxSchema>;

/** The part of the sandbox an engine's start and stop need. */
export type EngineSandbox = Pick<PodSandboxConfig, "cgroups" | "privateDirs" | "logDir">;

export const NO_SANDBOX: EngineSandbox = { cgroups: [], privateDirs: [], logDir: null };

/** Parses `ARENA_SANDBOX`; a value that does not parse is the arena's own error, named. */
export function parsePodSandbox(raw: string | undefined): PodSandboxConfig | null {
  if (raw === undefined || raw === "") return null;
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error("ARENA_SANDBOX is not JSON");
  }
  const parsed = podSandboxSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(`ARENA_SANDBOX: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}
