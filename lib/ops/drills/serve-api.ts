import { z } from "zod";
import { serveApp } from "../../testing/app-routes";

/**
 * The web process of a drill's throwaway arena where no `next build` is at hand: the app's route handlers (the whole
 * API, as Next dispatches them) on 127.0.0.1:PORT. `npx tsx lib/ops/drills/serve-api.ts`, the arena's environment set.
 */
const port = z.coerce.number().int().min(1).max(65535).parse(process.argv[2]);
const served = await serveApp(undefined, port);
console.log(`the API answers at ${served.url}`);
for (const signal of ["SIGTERM", "SIGINT"] as const)
  process.on(signal, () => void served.close().then(() => process.exit(0)));
