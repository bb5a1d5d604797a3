import { parseServeArgs } from "./cli-args";
import { parseSimEnv } from "./env";
import { DeviceFile } from "./scheduler/device";
import { startSimEngine } from "./sim-engine";

async function main(): Promise<void> {
  let args: ReturnType<typeof parseServeArgs>;
  let env: ReturnType<typeof parseSimEnv>;
  try {
    args = parseServeArgs(process.argv.slice(2));
    env = parseSimEnv(process.env);
  } catch (e) {
    console.error(`sim-engine: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(2);
  }
  const engine = await startSimEngine({
    mode: args.mode,
    k: args.k,
    speculator: args.speculator,
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
