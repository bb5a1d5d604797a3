import { execFile } from "node:child_process";
import { chmod, copyFile, mkdir, mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { BUNDLED_VLLM_STOCK_DIR, KIT_CLI_ENTRY } from "@/lib/client/local/kit-layout";
import { CLIENT_VERSION } from "@/lib/client/versions";
import { buildAgentBundle } from "@/lib/pods/agent/bundle/build-agent-bundle";
import { EXAMPLE_ENGINES } from "./examples";
import { buildClientBundle } from "./repo-client-bundle";

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The folder the kit unpacks to (`curl -sL $URL/kit.tar.gz | tar xz && cd speculatorarena-kit`). */
export const KIT_FOLDER = "speculatorarena-kit";

/** The kit's launcher (`bin/speculatorarena`): the bundled CLI on the kit's own Node, so a host without Node runs it. */
const LAUNCHER = `#!/usr/bin/env bash
# SpeculatorArena's participant kit: speculatorarena local|submit|status|watch|budget|board ... (--help for all).
# It runs on the kit's own Node (local/node); the Python client is python3 -m speculatorarena.client.
kit="$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)"
exec "$kit/local/node" "$kit/local/${KIT_CLI_ENTRY}" "$@"
`;

export interface KitOptions {
  /** The Node binary in `local/`: a copy (what is served), or a link to this one (tests on this machine). */
  node: "copy" | "link";
}

/**
 * Builds the participant's kit as a folder: the Python client (`speculatorarena/`, standard library only), the local
 * kit (`local/`: the pod agent bundle with the simulated engine, the CLI bundled beside it, the pinned vLLM's stock
 * launch.sh, and a Node binary), the `bin/speculatorarena` launcher, example engine directories and the README.
 */
export async function buildKit(kitDir: string, options: KitOptions): Promise<void> {
  await rm(kitDir, { recursive: true, force: true });
  await mkdir(kitDir, { recursive: true });
  const local = join(kitDir, "local");
  await buildAgentBundle(local, { node: options.node, simEngine: true });
  await buildClientBundle(join(local, KIT_CLI_ENTRY));
  await mkdir(join(local, BUNDLED_VLLM_STOCK_DIR), { recursive: true });
  await copyFile(
    join(REPO_ROOT, "lib/pods/stock-engines/vllm/launch.sh"),
    join(local, BUNDLED_VLLM_STOCK_DIR, "launch.sh"),
  );
  await chmod(join(local, BUNDLED_VLLM_STOCK_DIR, "launch.sh"), 0o755);

  await mkdir(join(kitDir, "speculatorarena"));
  for (const name of await readdir(join(REPO_ROOT, "kit/speculatorarena"))) {
    if (name.endsWith(".py"))
      await copyFile(join(REPO_ROOT, "kit/speculatorarena", name), join(kitDir, "speculatorarena", name));
  }
  for (const example of EXAMPLE_ENGINES) {
    await mkdir(join(kitDir, "examples", example.name), { recursive: true });
    await writeFile(join(kitDir, "examples", example.name, "launch.sh"), example.launch, { mode: 0o755 });
  }
  await mkdir(join(kitDir, "bin"));
  await writeFile(join(kitDir, "bin", "speculatorarena"), LAUNCHER, { mode: 0o755 });
  await copyFile(join(REPO_ROOT, "kit/README.md"), join(kitDir, "README.md"));
  await writeFile(join(kitDir, "VERSION"), `${CLIENT_VERSION}\n`);
}

/** Builds the kit and packs it as `archive` (a .tar.gz holding `speculatorarena-kit/`), written whole or not at all. */
export async function buildKitArchive(archive: string, options: KitOptions): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "speculatorarena-kit-"));
  try {
    await buildKit(join(work, KIT_FOLDER), options);
    await mkdir(dirname(archive), { recursive: true });
    const partial = `${archive}.${process.pid}.partial`;
    await run("tar", ["-C", work, "-czf", partial, KIT_FOLDER], { maxBuffer: 16 * 1024 * 1024 });
    await rename(partial, archive);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  const node = process.argv.includes("--link-node") ? "link" : "copy";
  const archive = arg("--archive");
  if (archive) {
    await buildKitArchive(resolve(archive), { node });
    console.log(`kit ${CLIENT_VERSION}: ${resolve(archive)}`);
  } else {
    const out = resolve(arg("--out") ?? join(REPO_ROOT, ".build", KIT_FOLDER));
    await buildKit(out, { node });
    console.log(`kit ${CLIENT_VERSION}: ${out} (run ${join(out, "bin", "speculatorarena")} --help)`);
  }
}
