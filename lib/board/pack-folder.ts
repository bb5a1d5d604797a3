import { type TarInput, writeTar } from "@/lib/engine-archive/write-tar";

export interface FolderFile {
  /** The path the browser gives (`webkitRelativePath`: the chosen folder's name first). */
  path: string;
  data: Uint8Array;
}

/** Scripts stay executable: a browser cannot read file modes, so launch.sh and *.sh are packed 0755. */
const isScript = (path: string) => path === "launch.sh" || path.endsWith(".sh") || path.startsWith("bin/");

/**
 * Packs a folder chosen in the browser as the submission's inline engine: the chosen folder's own name is
 * dropped so launch.sh sits at the archive's top, the tar is gzip'd with CompressionStream and base64'd.
 * Runs in the browser and in Node 20 alike.
 */
export async function packFolder(files: readonly FolderFile[]): Promise<{ base64: string; bytes: number }> {
  if (files.length === 0) throw new Error("the folder is empty");
  const stripped = files.map((f) => ({ ...f, path: stripTop(f.path) }));
  if (!stripped.some((f) => f.path === "launch.sh")) {
    throw new Error("the folder has no launch.sh at its top: choose the engine directory itself");
  }
  const inputs: TarInput[] = stripped
    .filter((f) => f.path !== "")
    .sort((a, b) => a.path.localeCompare(b.path))
    .map((f) => ({ path: f.path, data: f.data, mode: isScript(f.path) ? 0o755 : 0o644 }));
  const gz = await gzip(writeTar(inputs));
  return { base64: toBase64(gz), bytes: gz.length };
}

function stripTop(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  return parts.length > 1 ? parts.slice(1).join("/") : (parts[0] ?? "");
}

export async function gzip(data: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([data as BlobPart]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  const chunk = 0x8000;
  for (let i = 0; i < bytes.length; i += chunk) {
    binary += String.fromCharCode(...bytes.subarray(i, i + chunk));
  }
  return btoa(binary);
}
