import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface DeviceMemory {
  usedMib: number;
  totalMib: number;
}

export type DeviceProbe = () => Promise<DeviceMemory>;

/** Parses nvidia-smi's `--query-gpu=memory.used,memory.total --format=csv,noheader,nounits` (first GPU). */
export function parseNvidiaSmi(text: string): DeviceMemory {
  const line = text.trim().split("\n")[0] ?? "";
  const [used, total] = line.split(",").map((s) => Number.parseFloat(s.trim()));
  if (!Number.isFinite(used) || !Number.isFinite(total)) throw new Error(`unreadable device memory: "${line}"`);
  return { usedMib: used!, totalMib: total! };
}

/** The real GPU's memory, read from outside the engine as nvidia-smi reports it. */
export const nvidiaSmiProbe: DeviceProbe = async () => {
  const { stdout } = await run(
    "nvidia-smi",
    ["--query-gpu=memory.used,memory.total", "--format=csv,noheader,nounits"],
    {
      timeout: 10_000,
    },
  );
  return parseNvidiaSmi(stdout);
};

/** The simulated device's memory, from the file the simulated engine keeps in nvidia-smi's format; absent means idle. */
export function simulatedDeviceProbe(path: string, totalMib: number): DeviceProbe {
  return async () => {
    try {
      return parseNvidiaSmi(await readFile(path, "utf8"));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { usedMib: 0, totalMib };
      throw error;
    }
  };
}

/** nvidia-smi where a GPU answers, the simulated device otherwise. */
export async function detectDeviceProbe(
  simulatedFile: string,
  simulatedTotalMib: number,
): Promise<{ probe: DeviceProbe; kind: "nvidia" | "simulated" }> {
  try {
    await nvidiaSmiProbe();
    return { probe: nvidiaSmiProbe, kind: "nvidia" };
  } catch {
    return { probe: simulatedDeviceProbe(simulatedFile, simulatedTotalMib), kind: "simulated" };
  }
}
