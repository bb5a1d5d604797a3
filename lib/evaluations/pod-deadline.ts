import type { Profile } from "../protocol";

/**
 * A pod's hard limit: both engines' timed passes with their grace, four starts at the health limit,
 * and room for the checks. Past it the pod is killed and the evaluation void.
 */
export function podDeadlineSeconds(profile: Profile): number {
  const passes = profile.passes * (profile.passSeconds.solo + profile.passSeconds.team + profile.passSeconds.busy);
  const grace = profile.passes * 3 * profile.graceSeconds;
  const starts = 4 * profile.healthTimeoutSeconds;
  const checks = 600 + 4 * (profile.greedyProbes + profile.likelihoodReplies + profile.fidelityTexts);
  return Math.ceil(2 * (passes + grace) + starts + checks);
}
