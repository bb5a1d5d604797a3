import type { DeviceProbe } from "./device-probe";

/**
 * How often the device is read while the agent waits for it: every wait holds the pod (and its device) idle, and
 * a reading (a file, or one nvidia-smi query) costs far less than the half second a slower poll would leave unused.
 */
export const DEVICE_IDLE_POLL_MS = 100;

/** Waits until the device holds less than `idleMib`; false when it has not within `timeoutMs`. */
export async function waitDeviceIdle(
  probe: DeviceProbe,
  idleMib: number,
  timeoutMs: number,
  pollMs = DEVICE_IDLE_POLL_MS,
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
