import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { LiveMemory } from "./live-memory";
import { MemorySummary, memoryView } from "./memory-summary";

const record = {
  memory: {
    ok: true,
    peak_mib: 166_400,
    allowed_mib: 169_119.1,
    stock_peak_mib: 168_200,
    startup_peak_mib: 178_500,
    device_mib: 183_359,
    gpu_memory_utilization: 0.9,
  },
  limits: { memory_slack_mib: 4096 },
};

describe("the evaluation page's device memory", () => {
  it("shows the gated peak against the limit and how the limit is made, then each figure that is not gated", () => {
    const html = renderToStaticMarkup(<MemorySummary record={record} />);
    const text = html
      .replace(/<[^>]+>/g, " ")
      .replaceAll("&#x27;", "'")
      .replace(/\s+/g, " ");
    expect(text).toContain("Candidate, timed passes (gated) 162.5 GiB at peak, within its limit of 165.2 GiB");
    expect(text).toContain(
      "The limit 165.2 GiB = GPU_MEMORY_UTILIZATION 0.90 × the device's 179.1 GiB + 4.0 GiB slack",
    );
    expect(text).toContain("Stock engine, timed passes 164.3 GiB at peak (the same limit; shown, not gated)");
    expect(text).toContain(
      "Candidate, start-up and first warm-up 174.3 GiB at peak (not gated: the protocol counts the timed passes only)",
    );
  });

  it("marks a peak over the limit, and reads a record from before the extras were kept", () => {
    const old = { memory: { ok: false, peak_mib: 177_860, allowed_mib: 169_119.1 } };
    expect(memoryView(old)).toEqual({
      peakMib: 177_860,
      ok: false,
      limitMib: 169_119.1,
      limitRule: "GPU_MEMORY_UTILIZATION × the device + the slack",
      stockPeakMib: undefined,
      startupPeakMib: undefined,
    });
    const html = renderToStaticMarkup(<MemorySummary record={old} />);
    expect(html).toContain("at peak, over");
    expect(html).not.toContain("Stock engine");
    expect(memoryView({ ratios: {} })).toBeNull();
    expect(renderToStaticMarkup(<MemorySummary record={null} />)).toBe("");
  });

  it("holds the live reading to its limit, not to the device's size", () => {
    const html = renderToStaticMarkup(
      <LiveMemory
        memory={{ usedMib: 166_093, totalMib: 183_359, limitMib: 169_119.1, engine: "candidate", window: "pass" }}
      />,
    );
    const text = html
      .replace(/<[^>]+>/g, " ")
      .replaceAll("&#x27;", "'")
      .replace(/\s+/g, " ")
      .trim();
    expect(text).toBe(
      "Device memory (candidate, timed pass) 162.2 GiB of its 165.2 GiB limit GPU_MEMORY_UTILIZATION × the device's 179.1 GiB + slack",
    );
    const startup = renderToStaticMarkup(
      <LiveMemory
        memory={{ usedMib: 100_000, totalMib: 183_359, limitMib: 169_119.1, engine: "candidate", window: "startup" }}
      />,
    );
    expect(startup).toContain("not gated");
  });
});
