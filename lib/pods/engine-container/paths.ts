import { z } from "zod";

/**
 * Where the engine container of a Kubernetes evaluation pod keeps what the agent must name: the launcher's socket in
 * the volume the two containers share, the engines' scratch, the empty SPECULATOR of the stock engine. The pod spec
 * mounts them there (lib/pods/kubernetes/pod-spec.ts) and hands them to the agent in ARENA_ENGINE_CONTAINER.
 */
export const ENGINE_CONTAINER_PATHS = {
  /** The launcher, copied from the arena's image by the pod's init container; read-only in the engine container. */
  launcher: "/arena/launcher",
  /** The volume both containers mount: the agent's socket, and nothing else. */
  exchange: "/arena/exchange",
  socket: "/arena/exchange/launcher.sock",
  /** The engines' own scratch: each start's HOME and TMPDIR, the simulated device's file. Emptied between engines. */
  scratch: "/arena/engine-scratch",
  /** An empty, read-only folder: the stock engine's SPECULATOR. */
  noSpeculator: "/arena/no-speculator",
  tmp: "/tmp",
  shm: "/dev/shm",
} as const;

/** The launcher's file in its folder, run as `python3 -I -S <it>`. */
export const LAUNCHER_FILE = "engine-launcher.py";

/** The agent's `ARENA_ENGINE_CONTAINER`: engines start in the other container of the pod, through its launcher. */
export const engineContainerConfigSchema = z.object({
  socket: z.string().startsWith("/"),
  scratch: z.string().startsWith("/"),
  noSpeculator: z.string().startsWith("/"),
  /** How long the agent waits for the launcher to connect (the engine image may still be pulling). */
  acceptSeconds: z.number().positive().default(1800),
});

export type EngineContainerConfig = z.infer<typeof engineContainerConfigSchema>;

export function parseEngineContainerConfig(raw: string): EngineContainerConfig {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error("ARENA_ENGINE_CONTAINER is not JSON");
  }
  const parsed = engineContainerConfigSchema.safeParse(json);
  if (!parsed.success)
    throw new Error(
      `ARENA_ENGINE_CONTAINER: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return parsed.data;
}
