import { resolve } from "node:path";
import { z } from "zod";

/** The public data's default place: the shared folder beside the repository. */
export const DEFAULT_DATA_DIR = resolve(process.cwd(), "../shared/data");

const argsZ = z.object({ data: z.string().min(1).default(DEFAULT_DATA_DIR) });

/** Reads `--data DIR` from a script's arguments. */
export function dataDirFromArgs(argv: readonly string[]): string {
  const i = argv.indexOf("--data");
  return argsZ.parse({ data: i >= 0 ? argv[i + 1] : undefined }).data;
}
