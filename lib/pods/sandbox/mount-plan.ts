import { dirname, join, relative, sep } from "node:path";
import { z } from "zod";

/** Where a local pod sees its own inputs: a tmpfs of its own over `/run`, so nothing of the host's lies beside them. */
export const POD_ROOT = "/run/arena-pod";

/** The pod-local paths the agent and its engines use (the agent's folder is root-only: the pool and the logs). */
export const POD_PATHS = {
  engine: `${POD_ROOT}/engine`,
  speculator: `${POD_ROOT}/speculator`,
  target: `${POD_ROOT}/target`,
  stockEngine: `${POD_ROOT}/stock-engine`,
  scratch: `${POD_ROOT}/scratch`,
  agent: `${POD_ROOT}/agent`,
  pool: `${POD_ROOT}/agent/pool.jsonl`,
  logs: `${POD_ROOT}/agent/logs`,
} as const;

export type PodPathName = keyof typeof POD_PATHS;

/**
 * The host folders a pod gets a fresh tmpfs over: `/run` (which holds its own inputs and hides the host's sockets
 * there), and the scratch folders every process may write (protocol section 4: the files an engine leaves in shared
 * memory and scratch are removed; in a tmpfs of the pod's own they cannot outlive it, nor reach the host).
 */
export const PRIVATE_COVERS: readonly Cover[] = [
  { target: "/run", mode: 0o755 },
  { target: "/tmp", mode: 0o1777 },
  { target: "/var/tmp", mode: 0o1777 },
  { target: "/dev/shm", mode: 0o1777 },
];

export interface Cover {
  /** The folder covered, as the host resolves it (no symlink on its path). */
  target: string;
  mode: number;
}

export interface PodBind {
  name: Exclude<PodPathName, "agent">;
  /** A folder or file on the host. */
  source: string;
  kind: "dir" | "file";
  readOnly: boolean;
}

export const mountOpSchema = z.discriminatedUnion("op", [
  z.object({ op: z.literal("mkdir"), path: z.string(), mode: z.number().int() }),
  z.object({ op: z.literal("touch"), path: z.string() }),
  z.object({ op: z.literal("tmpfs"), target: z.string(), mode: z.number().int(), readOnly: z.boolean() }),
  z.object({ op: z.literal("bind"), source: z.string(), target: z.string(), readOnly: z.boolean() }),
  z.object({ op: z.literal("move"), source: z.string(), target: z.string() }),
]);

export type MountOp = z.infer<typeof mountOpSchema>;

export interface PodMountInput {
  /** An empty, root-only folder of the host where the pod's new mounts are put together before they are moved. */
  stageDir: string;
  covers: readonly Cover[];
  binds: readonly PodBind[];
  /** Host folders covered with an empty root-only tmpfs once the pod's view is made (the arena's data and state). */
  hide: readonly string[];
}

const within = (path: string, folder: string) =>
  path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);

/**
 * The mount operations that give a pod (in a mount namespace of its own) its view of the host, in order:
 *
 * 1. each covered folder's new tmpfs is mounted in the stage, and the pod's inputs are bound into the one for `/run`
 *    (read-only, except the scratch), each at its pod-local path;
 * 2. the tmpfs are moved over the folders they cover, the one that holds the stage last (a stage under `/tmp`
 *    would be hidden by the move over `/tmp`);
 * 3. the hidden folders still visible (not under a cover) get an empty root-only tmpfs.
 *
 * Binds are made before anything is hidden, so an input under `/tmp` or under the arena's data folder is still
 * reached; a bind keeps what it binds whatever is later mounted over its source's path.
 */
export function podMountPlan(input: PodMountInput): MountOp[] {
  const covers = input.covers.map((cover, i) => ({ ...cover, staged: join(input.stageDir, `cover-${i}`) }));
  const run = covers.find((c) => within(POD_ROOT, c.target));
  if (!run) throw new Error(`no cover holds ${POD_ROOT}: the pod's inputs would have nowhere of their own`);
  const staged = (podPath: string) => join(run.staged, relative(run.target, podPath));

  const ops: MountOp[] = [];
  for (const cover of covers) {
    ops.push({ op: "mkdir", path: cover.staged, mode: 0o700 });
    ops.push({ op: "tmpfs", target: cover.staged, mode: cover.mode, readOnly: false });
  }
  const made = new Set<string>([run.staged]);
  const mkdirs = (path: string, mode: number) => {
    const missing: string[] = [];
    for (let p = path; !made.has(p); p = dirname(p)) missing.unshift(p);
    for (const p of missing) {
      ops.push({ op: "mkdir", path: p, mode: p === staged(POD_PATHS.agent) ? 0o700 : p === path ? mode : 0o755 });
      made.add(p);
    }
  };
  mkdirs(staged(POD_ROOT), 0o755);
  mkdirs(staged(POD_PATHS.agent), 0o700);
  for (const bind of input.binds) {
    const target = staged(POD_PATHS[bind.name]);
    if (bind.kind === "dir") mkdirs(target, 0o755);
    else {
      mkdirs(dirname(target), 0o755);
      ops.push({ op: "touch", path: target });
    }
    ops.push({ op: "bind", source: bind.source, target, readOnly: bind.readOnly });
  }
  const holdsStage = (c: (typeof covers)[number]) => within(input.stageDir, c.target);
  for (const cover of [...covers.filter((c) => !holdsStage(c)), ...covers.filter(holdsStage)]) {
    ops.push({ op: "move", source: cover.staged, target: cover.target });
  }
  for (const path of input.hide) {
    // under a cover it is hidden already; under another hidden folder, it no longer exists once that one is
    if (covers.some((c) => within(path, c.target))) continue;
    if (input.hide.some((other) => other !== path && within(path, other))) continue;
    ops.push({ op: "tmpfs", target: path, mode: 0o700, readOnly: true });
  }
  return ops;
}

/** The `mount` command lines of one operation (`-n`: the host's mount table in /run is not the pod's to update). */
export function mountCommands(op: Extract<MountOp, { op: "tmpfs" | "bind" | "move" }>): string[][] {
  switch (op.op) {
    case "tmpfs": {
      const options = [
        `mode=${op.mode.toString(8).padStart(4, "0")}`,
        "nosuid",
        "nodev",
        ...(op.readOnly ? ["ro"] : []),
      ];
      return [["-n", "-t", "tmpfs", "-o", options.join(","), "arena-pod", op.target]];
    }
    case "bind":
      return [
        ["-n", "--bind", op.source, op.target],
        ["-n", "-o", `remount,bind,nosuid,nodev${op.readOnly ? ",ro" : ""}`, op.target],
      ];
    case "move":
      return [["-n", "--move", op.source, op.target]];
  }
}
