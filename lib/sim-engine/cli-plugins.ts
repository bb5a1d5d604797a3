import { cp, lstat, mkdir, readdir, readFile, rm } from "node:fs/promises";
import { isAbsolute, join, normalize, sep } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { SPECULATOR_METHODS, type SpeculatorMethod } from "./speculators/drafters";

/**
 * The simulated runtime's plugins, shaped like vLLM's: an engine directory's `plugin/` is installed into the
 * engine user's HOME before `launch.sh serve` (`sim-engine install-plugin DIR`, as pip installs into the user
 * site), and `sim-engine serve` loads every installed plugin and calls its `register(engine)`, as vLLM calls
 * each `vllm.general_plugins` entry point. A plugin registers named drafters that `serve --drafter NAME` runs.
 */
export const MANIFEST = "sim-plugin.json";

export const manifestSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, "name: lower-case letters, digits, - and _, at most 64"),
    version: z.string().regex(/^[0-9A-Za-z.+-]{1,32}$/, "version: at most 32 letters, digits, . + -"),
    main: z
      .string()
      .refine(
        (p) => !isAbsolute(p) && !normalize(p).split(sep).includes("..") && /\.m?js$/.test(p),
        "main: a .mjs or .js file inside the plugin",
      ),
  })
  .strict();
export type PluginManifest = z.infer<typeof manifestSchema>;

/** What a plugin may register: a named drafter, one of the engine's speculators with its own draft length. */
export const drafterSchema = z
  .object({
    method: z.enum(SPECULATOR_METHODS, { error: "method must be ngram, draft or eagle" }),
    k: z.number().int().min(1, "k must be 1 to 16").max(16, "k must be 1 to 16"),
  })
  .strict();
export type RegisteredDrafter = { method: SpeculatorMethod; k: number; plugin: string };

/** The engine user's installed plugins: a user site under HOME, as pip's `--user` uses `~/.local`. */
export function pluginsDir(home: string): string {
  return join(home, ".local", "share", "sim-engine", "plugins");
}

/** HOME, where plugins are installed and found; the CLI parses it from its environment. */
export const pluginHomeSchema = z.object({
  HOME: z
    .string({ error: "HOME is required: plugins are installed under it" })
    .refine(isAbsolute, "HOME must be an absolute path"),
});

export class PluginError extends Error {}

async function readManifest(dir: string, shown: string): Promise<PluginManifest> {
  const raw = await readFile(join(dir, MANIFEST), "utf8").catch(() => null);
  if (raw === null) throw new PluginError(`${shown}/${MANIFEST} is missing`);
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch (error) {
    throw new PluginError(`${shown}/${MANIFEST} is not JSON: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success)
    throw new PluginError(`${shown}/${MANIFEST}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
  const main = await lstat(join(dir, parsed.data.main)).catch(() => null);
  if (!main?.isFile())
    throw new PluginError(`${shown}/${MANIFEST}: main "${parsed.data.main}" is not a file of the plugin`);
  return parsed.data;
}

type Register = (engine: { registerDrafter(name: string, drafter: unknown): void }) => unknown;

async function importRegister(dir: string, manifest: PluginManifest): Promise<Register> {
  let module: { register?: unknown };
  try {
    module = (await import(pathToFileURL(join(dir, manifest.main)).href)) as { register?: unknown };
  } catch (error) {
    throw new PluginError(`${manifest.main} cannot be loaded: ${(error as Error).message}`);
  }
  if (typeof module.register !== "function")
    throw new PluginError(`${manifest.main} does not export a register(engine) function`);
  return module.register as Register;
}

/** `sim-engine install-plugin DIR`: checks the plugin builds (its manifest, its module) and installs it under HOME. */
export async function installSimPlugin(source: string, home: string): Promise<PluginManifest> {
  const info = await lstat(source).catch(() => null);
  if (!info?.isDirectory()) throw new PluginError(`${source} is not a directory`);
  const manifest = await readManifest(source, "plugin");
  await importRegister(source, manifest);
  const destination = join(pluginsDir(home), manifest.name);
  await mkdir(pluginsDir(home), { recursive: true });
  await rm(destination, { recursive: true, force: true });
  await cp(source, destination, { recursive: true, verbatimSymlinks: true });
  return manifest;
}

/**
 * Loads every installed plugin and calls its `register`, as vLLM's `load_general_plugins` does: a plugin that
 * cannot be loaded is logged and skipped; one whose `register` throws stops the engine.
 */
export async function loadSimPlugins(
  home: string,
  log: (line: string) => void,
): Promise<Map<string, RegisteredDrafter>> {
  const drafters = new Map<string, RegisteredDrafter>();
  const root = pluginsDir(home);
  const names = (await readdir(root).catch(() => [] as string[])).sort();
  for (const name of names) {
    const dir = join(root, name);
    let register: Register;
    let manifest: PluginManifest;
    try {
      manifest = await readManifest(dir, name);
      register = await importRegister(dir, manifest);
    } catch (error) {
      log(`ERROR [plugins] Failed to load plugin ${name}: ${(error as Error).message}`);
      continue;
    }
    const registered: string[] = [];
    await register({
      registerDrafter(drafterName: string, drafter: unknown) {
        if (typeof drafterName !== "string" || !/^[a-z][a-z0-9_-]{0,63}$/.test(drafterName))
          throw new PluginError(
            `plugin ${manifest.name}: a drafter's name must be lower-case letters, digits, - and _`,
          );
        const parsed = drafterSchema.safeParse(drafter);
        if (!parsed.success)
          throw new PluginError(
            `plugin ${manifest.name}: drafter ${drafterName}: ${parsed.error.issues.map((i) => i.message).join("; ")}`,
          );
        drafters.set(drafterName, { ...parsed.data, plugin: manifest.name });
        registered.push(drafterName);
      },
    });
    log(
      `INFO [plugins] Loaded plugin ${manifest.name} ${manifest.version}${registered.length ? `: drafters ${registered.join(", ")}` : ""}`,
    );
  }
  return drafters;
}
