import { main } from "./cli";

/** The participant's CLI (`npx speculatorarena`, `npm run client --`, the kit's `./speculatorarena`). */
const controller = new AbortController();
process.on("SIGINT", () => {
  if (controller.signal.aborted) process.exit(130);
  controller.abort();
});
process.on("SIGTERM", () => controller.abort());
// a reader that went away (a closed pipe) must not end a local run before its agent has stopped its engines
for (const stream of [process.stdout, process.stderr]) stream.on("error", () => undefined);
const code = await main(process.argv.slice(2), process.env, {
  out: process.stdout,
  err: process.stderr,
  tty: process.stdout.isTTY === true,
  signal: controller.signal,
});
process.exit(code);
