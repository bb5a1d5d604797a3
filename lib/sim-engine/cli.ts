import { parseInstallArgs, parseServeArgs, strengthsOfArgs } from "./cli-args";
import { installSimPlugin, loadSimPlugins, PluginError, pluginHomeSchema, type RegisteredDrafter } from "./cli-plugins";
import { parseSimEnv } from "./env";

const usageError = (e: unknown): never => {
  console.error(`sim-engine: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(2);
};

/** `install-plugin DIR`: exits 0 with pip's closing line, or 1 with an ERROR line naming what is wrong. */
async function installPlugin(argv: readonly string[]): Promise<void> {
  let dir = "";
  let home = "";
  try {
    dir = parseInstallArgs(argv).dir;
    const parsed = pluginHomeSchema.safeParse(process.env);
    if (!parsed.success) throw new Error(parsed.error.issues.map((i) => i.message).join("; "));
    home = parsed.data.HOME;
  } catch (e) {
    usageError(e);
  }
  try {
    const manifest = await installSimPlugin(dir, home);
    console.log(`Successfully installed ${manifest.name}-${manifest.version}`);
  } catch (e) {
    if (!(e instanceof PluginError)) throw e;
    console.error(`ERROR: ${e.message}`);
    process.exit(1);
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === "install-plugin") return installPlugin(argv);
  let args: ReturnType<typeof parseServeArgs> = {};
  let env: ReturnType<typeof parseSimEnv> = {} as ReturnType<typeof parseSimEnv>;
  try {
    args = parseServeArgs(argv);
    env = parseSimEnv(process.env);
  } catch (e) {
    usageError(e);
  }
  const home = pluginHomeSchema.safeParse(process.env);
  const drafters = home.success
    ? await loadSimPlugins(home.data.HOME, (line) => console.log(line))
    : new Map<string, RegisteredDrafter>();
  let drafter: RegisteredDrafter | undefined;
  if (args.drafter) {
    drafter = drafters.get(args.drafter);
    if (!drafter)
      usageError(
        `unknown drafter "${args.drafter}": no installed plugin registers it (registered: ${[...drafters.keys()].join(", ") || "none"})`,
      );
  }
  // loaded only to serve: installing a plugin needs none of the engine
  const { startSimEngine } = await import("./sim-engine");
  const { DeviceFile } = await import("./scheduler/device");
  const engine = await startSimEngine({
    mode: args.mode ?? drafter?.method,
    k: args.k ?? drafter?.k,
    speculator: args.speculator ?? drafter?.method,
    speculatorDir: env.SPECULATOR,
    port: env.PORT,
    servedName: env.SERVED_NAME,
    maxModelLen: env.MAX_MODEL_LEN,
    maxNumSeqs: env.MAX_NUM_SEQS,
    gpuMemoryUtilization: env.GPU_MEMORY_UTILIZATION,
    prefixCaching: env.PREFIX_CACHING,
    simSpeed: env.SIM_SPEED,
    deviceFile: env.SIM_DEVICE_FILE,
    tokenizerDir: env.TOKENIZER,
    failRate: args["fail-rate"],
    crashAfter: args["crash-after"],
    ...strengthsOfArgs(args),
    log: (line) => console.log(line),
    onCrash: () => process.exit(1),
  });
  // However the process ends, its device memory is free again.
  process.on("exit", () => new DeviceFile(env.SIM_DEVICE_FILE).write(0));
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`INFO:     Shutting down (${signal})`);
    engine.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

main().catch((e: unknown) => {
  console.error(`sim-engine: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
  process.exit(1);
});
