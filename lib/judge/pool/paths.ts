import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The public dev pool committed with the judge. */
export const DEV_POOL_PATH = join(dirname(fileURLToPath(import.meta.url)), "data/dev.jsonl");
