import { recentDurations } from "@/lib/evaluations/recent-durations";
import { cachedPerActivity, cachedPerScore } from "./board-cache";
import { countActiveEvaluations } from "./count-active";
import { listRecentEvaluations } from "./list-recent";

/**
 * The public pages' reads of the evaluations, each shared by every reader until what it reads changes
 * (board-cache.ts): under fifty readers a second, one read per change instead of one per reader.
 */
export const recentEvaluations = (options: { limit: number; profiles: "full" | "test" }) =>
  cachedPerActivity(`recent:${options.profiles}:${options.limit}`, () => listRecentEvaluations(options));

export const activeEvaluations = () => cachedPerActivity("active", countActiveEvaluations);

export const profileDurations = () => cachedPerScore("durations", () => recentDurations());
