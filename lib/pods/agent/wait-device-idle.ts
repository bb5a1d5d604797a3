import type { DeviceProbe } from "./device-probe";

/** Waits until the device holds less than `idleMib`; false when it has not within `timeoutMs`. */
export async function waitDeviceIdle(
  probe: DeviceProbe,
  idleMib: number,
  timeoutMs: number,
  pollMs = 500,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await probe()).usedMib < idleMib) return true;
    } catch {
      // an unreadable probe is not an idle device
    }
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
