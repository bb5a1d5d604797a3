import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { currentProtocol } from "../protocol";
import { calibrationReportFrom } from "./build-report";
import { figures, pod } from "./calibration-fixtures";
import { appendPod, readPodsLog, readPodsLogs, startPodsLog } from "./pods-log";

const dir = await mkdtemp(join(tmpdir(), "pods-log-"));
afterAll(() => rm(dir, { recursive: true, force: true }));

const header = {
  kind: "speculatorarena.calibration-pods" as const,
  task: "qwen3-8b" as const,
  profile: "smoke",
  aa: 2,
  sim_speed: 1,
  concurrency: 2,
  started_at: "2026-12-01T10:00:00.000Z",
};

describe("a calibration's pods log", () => {
  it("keeps each pod's record as it comes back, and the report rebuilt from it equals the one made live", async () => {
    const file = join(dir, "run.pods.jsonl");
    const finished = [
      { group: "aa" as const, pod: pod("stock", figures(), "a") },
      { group: "reference" as const, pod: pod("ngram-4", figures({ fidelity: 1e-7 }), "c") },
      { group: "aa" as const, pod: { ...pod("stock", figures(), "b"), outcome: "void" as const, record: null } },
    ];
    await startPodsLog(file, header);
    for (const [i, f] of finished.entries()) await appendPod(file, f, new Date(Date.UTC(2026, 11, 1, 11, i)));
    const read = await readPodsLog(file);
    expect(read.header).toEqual(header);
    expect(read.pods).toEqual(finished);
    expect(read.lastFinishedAt?.toISOString()).toBe("2026-12-01T11:02:00.000Z");

    const common = { protocol: currentProtocol(), task: "qwen3-8b" as const, profile: "smoke", requestedAa: 2 };
    const rebuilt = calibrationReportFrom({
      ...common,
      pods: read.pods,
      simSpeed: 1,
      concurrency: 2,
      createdAt: read.lastFinishedAt!,
      wallSeconds: 3720,
    });
    const live = calibrationReportFrom({
      ...common,
      pods: finished,
      simSpeed: 1,
      concurrency: 2,
      createdAt: new Date("2026-12-01T11:02:00.000Z"),
      wallSeconds: 3720,
    });
    expect(rebuilt).toEqual(live);
    expect(rebuilt.aa.runs.map((r) => r.outcome)).toEqual(["scored", "void"]);
    expect(rebuilt.references.map((r) => r.key)).toEqual(["ngram-4"]);
  });

  it("names the line and field of a log that is not one", async () => {
    const file = join(dir, "bad.pods.jsonl");
    await writeFile(file, `${JSON.stringify(header)}\n{"group":"aa","pod":{"key":"stock"},"finished_at":"x"}\n`);
    await expect(readPodsLog(file)).rejects.toThrow(/bad\.pods\.jsonl:2: pod\.label/);
    await writeFile(file, '{"kind":"other"}\n');
    await expect(readPodsLog(file)).rejects.toThrow(/bad\.pods\.jsonl:1: not a calibration pods log header/);
    await writeFile(file, "");
    await expect(readPodsLog(file)).rejects.toThrow(/empty pods log/);
    expect(await readFile(file, "utf8")).toBe("");
  });

  it("reads the logs of a calibration's groups run apart as one: A/A pods first, their times added up", async () => {
    const refs = join(dir, "refs.pods.jsonl");
    const aa = join(dir, "aa.pods.jsonl");
    await startPodsLog(refs, { ...header, concurrency: 3, started_at: "2026-12-02T10:00:00.000Z" });
    await appendPod(
      refs,
      { group: "reference", pod: pod("ngram-4", figures(), "c") },
      new Date("2026-12-02T11:00:00.000Z"),
    );
    await startPodsLog(aa, { ...header, concurrency: 2 });
    for (const seed of ["a", "b"])
      await appendPod(aa, { group: "aa", pod: pod("stock", figures(), seed) }, new Date("2026-12-01T10:30:00.000Z"));
    const merged = await readPodsLogs([refs, aa]);
    expect(merged.pods.map((p) => `${p.group}:${p.pod.seed}`)).toEqual(["aa:a", "aa:b", "reference:c"]);
    expect(merged.header.concurrency).toBe(3);
    expect(merged.wallSeconds).toBe(3600 + 1800);
    expect(merged.lastFinishedAt?.toISOString()).toBe("2026-12-02T11:00:00.000Z");

    const other = join(dir, "other.pods.jsonl");
    await startPodsLog(other, { ...header, profile: "ci" });
    await expect(readPodsLogs([aa, other])).rejects.toThrow(`${other}: its profile is ci, not smoke as in ${aa}`);
  });
});
