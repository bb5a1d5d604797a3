import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Packs a directory as a .tar.gz, the way a participant's client does (`tar -C dir -cz .`). */
export async function packDirectory(dir: string): Promise<Buffer> {
  const { stdout } = await run("tar", ["-C", dir, "-cz", "."], { encoding: "buffer", maxBuffer: 512 * 1024 * 1024 });
  return stdout;
}
