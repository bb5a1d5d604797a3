import { describe, expect, it } from "vitest";
import { assembleBoard } from "./list-board";
import { latestPer, rankEntries } from "./ranking";
import { testEntry } from "./test-entries";

describe("rankEntries", () => {
  it("ranks by score, breaks ties by who got there first, and puts entries without a score last", () => {
    const ranked = rankEntries([
      testEntry({ evaluationId: "late-tie", score: 1.5, finishedAt: "2026-10-24T05:00:00Z" }),
      testEntry({ evaluationId: "none", score: null }),
      testEntry({ evaluationId: "best", score: 1.9 }),
      testEntry({ evaluationId: "early-tie", score: 1.5, finishedAt: "2026-10-24T02:00:00Z" }),
      testEntry({ evaluationId: "failed", score: 0 }),
    ]);
    expect(ranked.map((e) => [e.evaluationId, e.rank])).toEqual([
      ["best", 1],
      ["early-tie", 2],
      ["late-tie", 3],
      ["failed", 4],
      ["none", 5],
    ]);
  });

  it("keeps each key's last finished entry", () => {
    const kept = latestPer(
      [
        testEntry({ evaluationId: "a1", account: "a", finishedAt: "2026-10-24T01:00:00Z", score: 2 }),
        testEntry({ evaluationId: "a2", account: "a", finishedAt: "2026-10-24T03:00:00Z", score: 1.1 }),
        testEntry({ evaluationId: "b1", account: "b", finishedAt: "2026-10-24T02:00:00Z" }),
      ],
      (e) => e.account,
    );
    expect(kept.map((e) => e.evaluationId).sort()).toEqual(["a2", "b1"]);
  });
});

describe("assembleBoard", () => {
  const entries = [
    testEntry({ evaluationId: "alice-test-old", account: "alice", score: 1.9, finishedAt: "2026-10-24T01:00:00Z" }),
    testEntry({ evaluationId: "alice-test", account: "alice", score: 1.2, finishedAt: "2026-10-24T04:00:00Z" }),
    testEntry({ evaluationId: "alice-dev", account: "alice", split: "dev", score: 1.8 }),
    testEntry({ evaluationId: "bob-test", account: "bob", score: 1.5 }),
    testEntry({ evaluationId: "bob-dev", account: "bob", split: "dev", score: 1.52 }),
    testEntry({ evaluationId: "carol-ci", account: "carol", profile: "ci", score: 3 }),
    testEntry({
      evaluationId: "ref-stock",
      account: "reference",
      accountKind: "reference",
      referenceKey: "stock",
      score: 1.001,
    }),
    testEntry({
      evaluationId: "ref-ngram-old",
      account: "reference",
      accountKind: "reference",
      referenceKey: "ngram-4",
      score: 0.9,
      finishedAt: "2026-10-24T00:30:00Z",
    }),
    testEntry({
      evaluationId: "ref-ngram",
      account: "reference",
      accountKind: "reference",
      referenceKey: "ngram-4",
      score: 0.72,
    }),
    testEntry({
      evaluationId: "ref-ci",
      account: "reference",
      accountKind: "reference",
      referenceKey: "stock",
      profile: "smoke",
    }),
  ];
  const board = assembleBoard("qwen3-8b", entries);

  it("ranks each participant's last scored test evaluation under the full protocol", () => {
    expect(board.participants.map((e) => [e.evaluationId, e.rank])).toEqual([
      ["bob-test", 1],
      ["alice-test", 2],
    ]);
  });

  it("flags a test result far below the same account's dev result, and only that one", () => {
    const alice = board.participants.find((e) => e.account === "alice")!;
    expect(alice.devGap).toEqual({ test: 1.2, dev: 1.8, drop: expect.closeTo(1 / 3, 6) });
    expect(board.participants.find((e) => e.account === "bob")!.devGap).toBeNull();
  });

  it("ranks references apart, the last run of each reference", () => {
    expect(board.references.map((e) => e.evaluationId)).toEqual(["ref-stock", "ref-ngram"]);
  });

  it("lists runs under a test profile, and never ranks them", () => {
    expect(board.profiled.map((e) => e.evaluationId).sort()).toEqual(["carol-ci", "ref-ci"]);
    const ranked = [...board.participants, ...board.references].map((e) => e.evaluationId);
    expect(ranked).not.toContain("carol-ci");
    expect(ranked).not.toContain("ref-ci");
  });
});
